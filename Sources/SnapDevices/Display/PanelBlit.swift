import CYUV
import SnapImaging

/// How a panel stores a pixel.
public enum PanelFormat: Sendable, Hashable {
    /// 32 bits, blue in the lowest byte: DRM's XRGB8888, and cairo's own layout.
    case xrgb8888
    /// 32 bits, red in the lowest byte.
    case xbgr8888
    /// 16 bits, red in the high five: the usual SPI panel.
    case rgb565
}

/// Copies a drawn canvas into a panel's memory: turned for a portrait-mounted panel and converted to the
/// panel's pixel format, with libyuv's SIMD rows. The one scratch buffer (for turn plus conversion) is
/// kept between frames. Unchecked Sendable: each display uses its blit only under its own lock.
public final class PanelBlit: @unchecked Sendable {
    public let rotation: Int
    public let format: PanelFormat
    private var scratch: [UInt8] = []

    /// `rotation`: quarter turns clockwise, in degrees, from the canvas to the panel.
    public init(rotation: Int, format: PanelFormat) {
        self.rotation = rotation
        self.format = format
    }

    /// The canvas size for a panel of `width` x `height`: swapped for a quarter turn.
    public static func canvasSize(panelWidth width: Int, height: Int, rotation: Int) -> (width: Int, height: Int) {
        rotation % 180 == 0 ? (width, height) : (height, width)
    }

    /// Copies only `regions` of the frame (nil: all of it) to where they go on the panel, turned and
    /// converted like the whole frame: what a partial redraw changed.
    public func copy(
        _ frame: FramePixels, regions: [PixelRegion]?, to target: UnsafeMutablePointer<UInt8>,
        stride targetStride: Int
    ) {
        guard let regions else { return copy(frame, to: target, stride: targetStride) }
        for region in regions { copy(frame, region: region, to: target, stride: targetStride) }
    }

    /// Copies one region of the frame to where it goes on the panel.
    public func copy(
        _ frame: FramePixels, region: PixelRegion, to target: UnsafeMutablePointer<UInt8>, stride targetStride: Int
    ) {
        guard let inside = region.clamped(width: frame.width, height: frame.height) else { return }
        let (x, y, w, h) = (inside.x, inside.y, inside.width, inside.height)
        // Where the region's top left lands on the panel: canvas (x, y) goes to (H-1-y, x) for a quarter
        // turn clockwise, (W-1-x, H-1-y) for a half turn, and (y, W-1-x) for three quarters.
        let (panelX, panelY) =
            switch rotation {
            case 90: (frame.height - y - h, x)
            case 180: (frame.width - x - w, frame.height - y - h)
            case 270: (y, frame.width - x - w)
            default: (x, y)
            }
        let bytesPerPixel = format == .rgb565 ? 2 : 4
        copy(
            frame.cropped(to: inside), to: target + panelY * targetStride + panelX * bytesPerPixel, stride: targetStride
        )
    }

    public func copy(_ frame: FramePixels, to target: UnsafeMutablePointer<UInt8>, stride targetStride: Int) {
        let (pixels, stride) = (frame.bytes, frame.stride)
        let (width, height) = (Int32(frame.width), Int32(frame.height))
        guard rotation != 0 else {
            convert(pixels, Int32(stride), width, height, to: target, Int32(targetStride))
            return
        }
        let mode = RotationMode(rawValue: UInt32(rotation))
        if format == .xrgb8888 {
            ARGBRotate(pixels, Int32(stride), target, Int32(targetStride), width, height, mode)
            return
        }
        let (panelWidth, panelHeight) = rotation % 180 == 0 ? (width, height) : (height, width)
        let needed = Int(panelWidth) * Int(panelHeight) * 4
        if scratch.count < needed { scratch = [UInt8](repeating: 0, count: needed) }
        scratch.withUnsafeMutableBufferPointer { turned in
            ARGBRotate(pixels, Int32(stride), turned.baseAddress, panelWidth * 4, width, height, mode)
            convert(turned.baseAddress!, panelWidth * 4, panelWidth, panelHeight, to: target, Int32(targetStride))
        }
    }

    private func convert(
        _ source: UnsafePointer<UInt8>, _ sourceStride: Int32, _ width: Int32, _ height: Int32,
        to target: UnsafeMutablePointer<UInt8>, _ targetStride: Int32
    ) {
        switch format {
        case .xrgb8888: ARGBCopy(source, sourceStride, target, targetStride, width, height)
        case .xbgr8888: ARGBToABGR(source, sourceStride, target, targetStride, width, height)
        case .rgb565: ARGBToRGB565(source, sourceStride, target, targetStride, width, height)
        }
    }
}
