/// A photo sent from the owner's page: what kind of file it is, read from its first bytes and never from
/// its name or the type the browser claims, and the capture's pipeline run on it only when it is a whole
/// JPEG. A decompression bomb is refused by the decoder's own guards before a pixel is allocated
/// (`JPEG.maxPixels`, `JPEG.maxProgressivePixels`, `JPEGStructure.maxScans`).
///
/// HEIC is refused, with the reason, rather than converted: its decoder (libheif with libde265) would be
/// the station's largest and most exposed library for a file most phones never send, since Safari hands a
/// web page's file picker a JPEG of a HEIC photo (it converts unless the page asks for HEIC by name), and
/// Android cameras write JPEG. A PNG, GIF or WebP is a screenshot or a download, not a meal's photo.
public enum UploadedPhoto {
    /// A picture's kind, by its signature.
    public enum Kind: String, Sendable, Equatable {
        case jpeg, png, heic, gif, webp
        /// None of the above: not a picture the station knows.
        case other
    }

    /// Why an upload was not kept.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// A picture, or a file, that is not a JPEG.
        case notJPEG(Kind)
        /// More pixels than the station decodes (`JPEG.maxPixels`), or a progressive file too large.
        case tooLarge(width: Int, height: Int)
        /// The JPEG decoder's own words for a file it cannot read.
        case unreadable(String)
        /// A JPEG that ends early or is damaged part of the way: the decoder's warning.
        case incomplete(String)

        public var description: String {
            switch self {
            case .notJPEG(let kind): "a \(kind.rawValue) file, not a JPEG"
            case .tooLarge(let width, let height): "\(width)×\(height) pixels, more than the station decodes"
            case .unreadable(let why): "not readable as a JPEG: \(why)"
            case .incomplete(let why): "damaged or incomplete: \(why)"
            }
        }
    }

    /// The kind of picture `bytes` begin as.
    public static func kind(of bytes: [UInt8]) -> Kind {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF8".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        // ISO base media: a box `ftyp` first, its major brand one of HEIF's (ISO/IEC 23008-12) or AVIF's.
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if heifBrands.contains(brand) { return .heic }
        }
        return .other
    }

    static let heifBrands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis",
    ]

    /// Runs `pipeline` on a phone's photo: its EXIF orientation applied, its metadata dropped, as a capture
    /// is. Refuses what is not a JPEG, one too large to decode, one the decoder cannot read, and one it
    /// read only part of (a capture decoded that far is kept; a file sent again can be whole).
    public static func process(_ bytes: [UInt8], with pipeline: PhotoPipeline) throws(Problem) -> PhotoPipeline.Output {
        let kind = kind(of: bytes)
        guard kind == .jpeg else { throw .notJPEG(kind) }
        let output: PhotoPipeline.Output
        do {
            output = try pipeline.process(jpeg: bytes)
        } catch {
            switch error {
            case .tooLarge(let width, let height): throw .tooLarge(width: width, height: height)
            default: throw .unreadable(error.description)
            }
        }
        if let warning = output.decodeWarnings.first { throw .incomplete(warning) }
        return output
    }
}
