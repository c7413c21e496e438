/// Why an image could not be decoded, encoded or transformed.
public enum ImagingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// TurboJPEG refused the data; `call` is the TurboJPEG function, `message` its error string.
    case jpeg(call: String, message: String)
    /// cairo could not write a PNG; `call` is the function, `message` cairo's or the system's words.
    case png(call: String, message: String)
    /// The header announces more pixels than the station will allocate.
    case tooLarge(width: Int, height: Int)
    /// More scans than any real encoder writes: decoding it would take minutes.
    case tooManyScans(Int)
    case empty

    public var description: String {
        switch self {
        case .jpeg(let call, let message), .png(let call, let message): "\(call): \(message)"
        case .tooLarge(let width, let height): "the image is \(width)×\(height), more than the station decodes"
        case .tooManyScans(let scans):
            "the JPEG has \(scans) scans, more than the \(JPEGStructure.maxScans) any camera writes"
        case .empty: "the image data is empty"
        }
    }
}
