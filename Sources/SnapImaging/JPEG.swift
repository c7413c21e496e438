internal import CTurboJPEG

/// What TurboJPEG warned about while decoding: the picture was decoded as far as the data went (a
/// truncated file, a damaged last scan), as libvips and every browser do, and the caller logs why.
public final class JPEGWarnings: @unchecked Sendable {
    /// Written only by the decode that was given this collector, on its own thread.
    public private(set) var messages: [String] = []
    public init() {}
    func add(_ message: String) { messages.append(message) }
}

/// JPEG decoding and encoding through libjpeg-turbo's TurboJPEG API.
///
/// Decoding is guarded before any pixel is allocated: at most `maxPixels` (a 64 MP sensor fits), at most
/// `JPEGStructure.maxScans` scans, and a progressive file at most `maxProgressivePixels`, because its
/// decoder keeps every DCT coefficient of the whole image in memory (3 to 6 bytes a pixel).
public enum JPEG {
    public static let maxPixels = 64_000_000
    /// 16 MP progressive: at most about 100 MB of coefficients. The station's own photos are baseline.
    public static let maxProgressivePixels = 16_000_000

    /// The size a JPEG's header announces; wraps `tjDecompressHeader3`.
    public static func size(of data: [UInt8]) throws(ImagingError) -> (width: Int, height: Int) {
        let handle = try TurboJPEGHandle(decompress: true)
        let header = try data.withUnsafeBufferPointer { data throws(ImagingError) in try handle.header(data) }
        return (header.width, header.height)
    }

    /// Refuses a file whose structure would make decoding slow or large: too many scans, or too many
    /// pixels for a progressive decode.
    static func checkStructure(_ data: UnsafeBufferPointer<UInt8>, width: Int, height: Int) throws(ImagingError) {
        let structure = JPEGStructure(data)
        guard structure.scans <= JPEGStructure.maxScans else { throw .tooManyScans(structure.scans) }
        if structure.progressive, width * height > maxProgressivePixels {
            throw .tooLarge(width: width, height: height)
        }
    }

    /// The decoder's scaling factors of at most 1, smallest first. libjpeg-turbo has every M/8 (1/8, 1/4,
    /// 3/8, … 7/8, 1): its IDCT produces M×M pixels from each 8×8 block, so a 5/8 decode costs little more
    /// than a 1/2 one and lands much nearer a size between the powers of two.
    public static let scalingFactors: [(numerator: Int, denominator: Int)] = {
        var count: Int32 = 0
        guard let table = tjGetScalingFactors(&count), count > 0 else { return [(1, 8), (1, 4), (1, 2), (1, 1)] }
        return (0..<Int(count)).map { (Int(table[$0].num), Int(table[$0].denom)) }
            .filter { $0.numerator <= $0.denominator }
            .sorted { $0.numerator * $1.denominator < $1.numerator * $0.denominator }
    }()

    /// The DCT-scaled size for a `width` × `height` JPEG: the smallest scaling factor (`scalingFactors`)
    /// whose longest side is still at least `minimumLongestSide`. Refuses more than `maxPixels` before
    /// anything is allocated.
    static func scaledSize(width: Int, height: Int, minimumLongestSide: Int) throws(ImagingError) -> (
        width: Int, height: Int
    ) {
        guard width * height <= maxPixels else { throw .tooLarge(width: width, height: height) }
        for (numerator, denominator) in scalingFactors {
            // TurboJPEG's TJSCALED: rounded up.
            let candidate = (
                (width * numerator + denominator - 1) / denominator,
                (height * numerator + denominator - 1) / denominator
            )
            if max(candidate.0, candidate.1) >= minimumLongestSide { return candidate }
        }
        return (width, height)
    }

    /// The size `decode` and `decodeYUV` give a JPEG for `minimumLongestSide`, from its header alone, and
    /// whether that is at most half the full size: libjpeg-turbo's BGRX decode then makes 4:2:0 chroma at
    /// full resolution in its IDCT (`jpeg_core_output_dimensions`) instead of upsampling it.
    static func decodedSize(of data: UnsafeBufferPointer<UInt8>, minimumLongestSide: Int) throws(ImagingError) -> (
        width: Int, height: Int, fullChroma: Bool
    ) {
        let header = try TurboJPEGHandle(decompress: true).header(data)
        let size = try scaledSize(width: header.width, height: header.height, minimumLongestSide: minimumLongestSide)
        return (size.width, size.height, size.width * 2 <= header.width + 1)
    }

    /// Decodes a JPEG, letting the decoder scale by M/8 (DCT scaling, nearly free) down to the smallest size
    /// that still has a longest side of at least `minimumLongestSide`.
    ///
    /// A CMYK or YCCK file (print software writes them) is decoded as CMYK and converted. A warning (a
    /// truncated file: the rest is grey) goes to `warnings`; only a fatal error refuses the file.
    public static func decode(_ data: [UInt8], minimumLongestSide: Int = .max, warnings: JPEGWarnings? = nil)
        throws(ImagingError) -> PixelImage
    {
        try data.withUnsafeBufferPointer { data throws(ImagingError) in
            try decode(data, minimumLongestSide: minimumLongestSide, warnings: warnings)
        }
    }

    /// The same for a JPEG's bytes in place (a mapped file).
    public static func decode(
        _ data: UnsafeBufferPointer<UInt8>, minimumLongestSide: Int = .max, warnings: JPEGWarnings? = nil
    ) throws(ImagingError) -> PixelImage {
        let handle = try TurboJPEGHandle(decompress: true)
        let header = try handle.header(data)
        try checkStructure(data, width: header.width, height: header.height)
        let scaled = try scaledSize(width: header.width, height: header.height, minimumLongestSide: minimumLongestSide)
        var pixels = [UInt8](repeating: 0, count: scaled.width * scaled.height * PixelImage.bytesPerPixel)
        let cmyk = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let format = cmyk ? TJPF_CMYK : TJPF_BGRX
        let status = pixels.withUnsafeMutableBufferPointer { output in
            tjDecompress2(
                handle.raw, data.baseAddress, UInt(data.count), output.baseAddress, Int32(scaled.width), 0,
                Int32(scaled.height),
                Int32(format.rawValue), TJFLAG_ACCURATEDCT)
        }
        try handle.check(status, "tjDecompress2", warnings: warnings)
        if cmyk { convertInvertedCMYKToBGRX(&pixels) }
        return PixelImage(width: scaled.width, height: scaled.height, pixels: pixels)
    }

    /// CMYK as libjpeg hands out Adobe's files (stored inverted: 255 is no ink) to BGRX: each colour is
    /// its channel scaled by K, the conversion Photoshop's own files need.
    static func convertInvertedCMYKToBGRX(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count, by: 4) {
                let (c, m, y, k) = (
                    UInt16(buffer[index]), UInt16(buffer[index + 1]), UInt16(buffer[index + 2]),
                    UInt16(buffer[index + 3])
                )
                buffer[index] = UInt8((y * k + 127) / 255)
                buffer[index + 1] = UInt8((m * k + 127) / 255)
                buffer[index + 2] = UInt8((c * k + 127) / 255)
                buffer[index + 3] = 255
            }
        }
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

    func header(_ data: UnsafeBufferPointer<UInt8>) throws(ImagingError) -> (
        width: Int, height: Int, subsampling: Int32, colorspace: Int32
    ) {
        guard let bytes = data.baseAddress, !data.isEmpty else { throw .empty }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(raw, bytes, UInt(data.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw error("tjDecompressHeader3")
        }
        return (Int(width), Int(height), subsampling, colorspace)
    }

    func error(_ call: String) -> ImagingError {
        .jpeg(call: call, message: String(cString: tjGetErrorStr2(raw)))
    }

    /// A call's status: 0 is success; a warning (`TJERR_WARNING`: the data ended early, a scan was
    /// damaged) goes to `warnings` and the decoded picture stands; anything else is thrown.
    func check(_ status: Int32, _ call: String, warnings: JPEGWarnings?) throws(ImagingError) {
        guard status != 0 else { return }
        guard tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) else { throw error(call) }
        warnings?.add(String(cString: tjGetErrorStr2(raw)))
    }
}
