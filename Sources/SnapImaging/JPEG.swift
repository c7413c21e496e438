internal import CTurboJPEG

/// JPEG decoding and encoding through libjpeg-turbo's TurboJPEG API.
public enum JPEG {
    /// The most pixels a JPEG may announce before the station refuses it (a 64 MP sensor fits).
    public static let maxPixels = 64_000_000

    /// The size a JPEG's header announces; wraps `tjDecompressHeader3`.
    public static func size(of data: [UInt8]) throws(ImagingError) -> (width: Int, height: Int) {
        let handle = try TurboJPEGHandle(decompress: true)
        let header = try handle.header(data)
        return (header.width, header.height)
    }

    /// The DCT-scaled size (1/8, 1/4, 1/2 or full) for a `width` × `height` JPEG: the smallest whose longest
    /// side is still at least `minimumLongestSide`. Refuses more than `maxPixels` before anything is allocated.
    static func scaledSize(width: Int, height: Int, minimumLongestSide: Int) throws(ImagingError) -> (
        width: Int, height: Int
    ) {
        guard width * height <= maxPixels else { throw .tooLarge(width: width, height: height) }
        for denominator in [8, 4, 2] {
            let candidate = ((width + denominator - 1) / denominator, (height + denominator - 1) / denominator)
            if max(candidate.0, candidate.1) >= minimumLongestSide { return candidate }
        }
        return (width, height)
    }

    /// Decodes a JPEG, letting the decoder scale by 1/2, 1/4 or 1/8 (DCT scaling, nearly free) down to the
    /// smallest size that still has a longest side of at least `minimumLongestSide`.
    public static func decode(_ data: [UInt8], minimumLongestSide: Int = .max) throws(ImagingError) -> PixelImage {
        let handle = try TurboJPEGHandle(decompress: true)
        let header = try handle.header(data)
        let scaled = try scaledSize(width: header.width, height: header.height, minimumLongestSide: minimumLongestSide)
        var pixels = [UInt8](repeating: 0, count: scaled.width * scaled.height * PixelImage.bytesPerPixel)
        let status = pixels.withUnsafeMutableBufferPointer { output in
            tjDecompress2(
                handle.raw, data, UInt(data.count), output.baseAddress, Int32(scaled.width), 0, Int32(scaled.height),
                Int32(TJPF_BGRX.rawValue), TJFLAG_ACCURATEDCT)
        }
        // TurboJPEG reports a truncated file as a warning and fills the rest with grey; the station treats
        // that as an error too, so a damaged capture is never passed on as a good one.
        if status != 0 { throw handle.error("tjDecompress2") }
        return PixelImage(width: scaled.width, height: scaled.height, pixels: pixels)
    }

    /// Encodes pixels as a baseline JPEG with 4:2:0 chroma at `quality` (1…100); wraps `tjCompress2`.
    ///
    /// The output holds only the JFIF header and the image: no EXIF, GPS, XMP, IPTC or comment segment
    /// can leave the station, because none is ever written.
    public static func encode(_ image: PixelImage, quality: Int) throws(ImagingError) -> [UInt8] {
        let handle = try TurboJPEGHandle(decompress: false)
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(buffer) }
        let status = image.pixels.withUnsafeBufferPointer { input in
            tjCompress2(
                handle.raw, input.baseAddress, Int32(image.width), Int32(image.bytesPerRow), Int32(image.height),
                Int32(TJPF_BGRX.rawValue), &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(min(100, max(1, quality))),
                TJFLAG_ACCURATEDCT)
        }
        guard status == 0, let buffer else { throw handle.error("tjCompress2") }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}

/// Owns one TurboJPEG instance; wraps `tjInitDecompress`/`tjInitCompress` and `tjDestroy`.
final class TurboJPEGHandle {
    let raw: tjhandle

    init(decompress: Bool) throws(ImagingError) {
        guard let handle = decompress ? tjInitDecompress() : tjInitCompress() else {
            throw .jpeg(call: decompress ? "tjInitDecompress" : "tjInitCompress", message: "out of memory")
        }
        raw = handle
    }

    deinit { tjDestroy(raw) }

    func header(_ data: [UInt8]) throws(ImagingError) -> (width: Int, height: Int, subsampling: Int32) {
        guard !data.isEmpty else { throw .empty }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(raw, data, UInt(data.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw error("tjDecompressHeader3")
        }
        return (Int(width), Int(height), subsampling)
    }

    func error(_ call: String) -> ImagingError {
        .jpeg(call: call, message: String(cString: tjGetErrorStr2(raw)))
    }
}
