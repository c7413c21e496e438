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

extension PixelImage {
    /// Lends the image's pixels as a frame, for a display or a PNG file.
    public func withFramePixels<Result>(_ body: (FramePixels) throws -> Result) rethrows -> Result {
        try pixels.withUnsafeBufferPointer { buffer in
            try body(FramePixels(width: width, height: height, stride: bytesPerRow, bytes: buffer.baseAddress!))
        }
    }
}
