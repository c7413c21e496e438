extension Sequence<UInt8> {
    /// The bytes as two hex digits each: "0a1bff" (a digest the store keeps), or "0A:1B:FF" with
    /// `uppercase` and a `separator` (a certificate's fingerprint as browsers show it). Written digit by
    /// digit: `String(format: "%02x")` goes through CoreFoundation's formatter, 32 times for a session's
    /// hash on every request of the page.
    public func hexDigits(uppercase: Bool = false, separator: String = "") -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * (2 + separator.utf8.count))
        for byte in self {
            if !text.isEmpty { text.append(contentsOf: separator.utf8) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
