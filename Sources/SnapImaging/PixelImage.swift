/// An image in memory as 32-bit pixels, B G R X in byte order (XRGB8888 on a little-endian CPU).
///
/// One format for everything: it is what DRM dumb buffers scan out, what cairo's RGB24 surfaces draw
/// into, and what TurboJPEG decodes to (`TJPF_BGRX`), so no stage converts pixels for another.
public struct PixelImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// `width * 4` bytes per row, no padding.
    public var pixels: [UInt8]

    public static let bytesPerPixel = 4

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * Self.bytesPerPixel, "pixel buffer does not match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A single-colour image.
    public init(width: Int, height: Int, blue: UInt8 = 0, green: UInt8 = 0, red: UInt8 = 0) {
        var pixels = [UInt8](repeating: 255, count: width * height * Self.bytesPerPixel)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = blue
            pixels[index + 1] = green
            pixels[index + 2] = red
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    public var bytesPerRow: Int { width * Self.bytesPerPixel }

    /// The (red, green, blue) of one pixel.
    public func rgb(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let index = (y * width + x) * Self.bytesPerPixel
        return (pixels[index + 2], pixels[index + 1], pixels[index])
    }

    /// The size that fits inside `maxSide` × `maxSide` keeping the aspect ratio; never larger than now.
    public func fittingSize(maxSide: Int) -> (width: Int, height: Int) {
        Self.fittingSize(width: width, height: height, maxSide: maxSide)
    }

    /// The same for any `width` × `height` (a JPEG's decoded size, YUV planes).
    static func fittingSize(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > maxSide else { return (width, height) }
        let scale = Double(maxSide) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
