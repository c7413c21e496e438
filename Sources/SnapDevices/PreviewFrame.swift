import SnapFiles
import SnapImaging
import Synchronization

/// One live-preview frame: a picture ready to draw, or a camera buffer that is converted when first drawn
/// and goes back to the camera when its last holder lets go.
///
/// The preview slot, the display and the reference-frame service may each hold the frame; the buffer is
/// returned (`release`) in `deinit`, so a stale frame dropped from the slot frees its buffer at once,
/// and a frame being drawn keeps its buffer until the drawing is done.
public final class PreviewFrame: Sendable {
    public let width: Int
    public let height: Int
    /// The camera buffer's dmabufs, when a display can scan it out directly (zero copy).
    public let scanout: Scanout?
    /// CLOCK_MONOTONIC time of the frame's exposure, when the camera says.
    public let timestamp: Duration?
    private let convert: @Sendable () -> PixelImage?
    private let release: (@Sendable () -> Void)?
    private let converted = Lock<PixelImage??>(nil)

    /// A frame that is already a picture.
    public init(_ image: PixelImage, timestamp: Duration? = nil) {
        width = image.width
        height = image.height
        self.timestamp = timestamp
        scanout = nil
        convert = { image }
        release = nil
    }

    /// A camera buffer: `convert` makes the picture (nil if the buffer is no longer valid), `release`
    /// hands the buffer back.
    public init(
        width: Int, height: Int, timestamp: Duration?, scanout: Scanout? = nil,
        convert: @escaping @Sendable () -> PixelImage?, release: @escaping @Sendable () -> Void
    ) {
        self.width = width
        self.height = height
        self.scanout = scanout
        self.timestamp = timestamp
        self.convert = convert
        self.release = release
    }

    deinit { release?() }

    /// The frame as BGRX pixels, converted once.
    public var image: PixelImage? {
        converted.withLock { converted in
            if let done = converted { return done }
            let image = convert()
            converted = .some(image)
            return image
        }
    }
}

/// A camera buffer as a display plane reads it: format, size and, per plane, dmabuf, offset and stride.
public struct Scanout: Sendable, Hashable {
    public struct Plane: Sendable, Hashable {
        public var fd: Int32
        public var offset: Int
        public var stride: Int
        public init(fd: Int32, offset: Int, stride: Int) {
            self.fd = fd
            self.offset = offset
            self.stride = stride
        }
    }
    public var format: FourCC
    public var width: Int
    public var height: Int
    public var planes: [Plane]
    public init(format: FourCC, width: Int, height: Int, planes: [Plane]) {
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// The layout of a camera buffer in a format a plane can take (NV12, YUV420), or nil.
    public init?(_ buffer: CameraBuffer) {
        guard !buffer.dmabufs.isEmpty, buffer.dmabufs.allSatisfy({ $0.fd >= 0 }) else { return nil }
        let (stride, height) = (buffer.stride, buffer.height)
        let first = buffer.dmabufs[0]
        // One dmabuf for all planes is common: the chroma then follows the luma rows.
        func plane(_ index: Int, offset: Int, stride: Int) -> Plane {
            index < buffer.dmabufs.count
                ? Plane(fd: buffer.dmabufs[index].fd, offset: buffer.dmabufs[index].offset, stride: stride)
                : Plane(fd: first.fd, offset: first.offset + offset, stride: stride)
        }
        let planes: [Plane]
        switch buffer.format {
        case .nv12:
            planes = [plane(0, offset: 0, stride: stride), plane(1, offset: stride * height, stride: stride)]
        case .yuv420:
            let chroma = stride * height
            planes = [
                plane(0, offset: 0, stride: stride), plane(1, offset: chroma, stride: stride / 2),
                plane(2, offset: chroma + (stride / 2) * ((height + 1) / 2), stride: stride / 2),
            ]
        default:
            return nil
        }
        self.init(format: buffer.format, width: buffer.width, height: height, planes: planes)
    }
}
