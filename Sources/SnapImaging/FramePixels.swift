/// A drawn frame lent to a display: XRGB8888 rows (B, G, R, X bytes, the station's one pixel format),
/// `stride` bytes apart. It borrows the memory of whoever drew it, so it is valid only during the call
/// it is passed to; a display that keeps pixels copies them.
public struct FramePixels {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (at least `width * 4`).
    public let stride: Int
    public let bytes: UnsafePointer<UInt8>

    public init(width: Int, height: Int, stride: Int, bytes: UnsafePointer<UInt8>) {
        precondition(stride >= width * PixelImage.bytesPerPixel, "rows overlap")
        self.width = width
        self.height = height
        self.stride = stride
        self.bytes = bytes
    }

    /// The (red, green, blue) of one pixel.
    public func rgb(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let pixel = bytes + y * stride + x * PixelImage.bytesPerPixel
        return (pixel[2], pixel[1], pixel[0])
    }
}

/// A rectangle of whole pixels: the part of a frame that changed since the last one.
public struct PixelRegion: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The smallest region holding both.
    public func union(_ other: PixelRegion) -> PixelRegion {
        let (left, top) = (min(x, other.x), min(y, other.y))
        let (right, bottom) = (max(x + width, other.x + other.width), max(y + height, other.y + other.height))
        return PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The part inside a frame of `width` × `height`; nil when none is.
    public func clamped(width frameWidth: Int, height frameHeight: Int) -> PixelRegion? {
        let (left, top) = (max(0, x), max(0, y))
        let (right, bottom) = (min(frameWidth, x + width), min(frameHeight, y + height))
        guard right > left, bottom > top else { return nil }
        return PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
    }
}

extension FramePixels {
    /// The part of the frame in `region` (which must lie inside it), without a copy.
    public func cropped(to region: PixelRegion) -> FramePixels {
        precondition(
            region.x >= 0 && region.y >= 0 && region.width > 0 && region.height > 0 && region.x + region.width <= width
                && region.y + region.height <= height, "the region lies outside the frame")
        return FramePixels(
            width: region.width, height: region.height, stride: stride,
            bytes: bytes + region.y * stride + region.x * PixelImage.bytesPerPixel)
    }
}

extension PixelImage {
    /// Lends the image's pixels as a frame, for a display or a PNG file.
    public func withFramePixels<Result>(_ body: (FramePixels) throws -> Result) rethrows -> Result {
        try pixels.withUnsafeBufferPointer { buffer in
            try body(FramePixels(width: width, height: height, stride: bytesPerRow, bytes: buffer.baseAddress!))
        }
    }
}
