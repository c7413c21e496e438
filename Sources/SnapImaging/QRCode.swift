internal import CQREncode

/// A QR code's modules, made by libqrencode (8-bit mode, error correction M, the smallest version that
/// holds the text). Wraps `QRcode_encodeString8bit` and frees its result at once.
public struct QRCode: Sendable, Hashable {
    /// Modules per side.
    public let size: Int
    /// Row by row, true for a dark module.
    public let modules: [Bool]

    public init?(text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // libqrencode sets the lowest bit of each byte for a dark module.
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }
}
