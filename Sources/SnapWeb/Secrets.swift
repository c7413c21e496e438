internal import CLibCrypto
import Foundation
import SnapCore

/// Random tokens and their hashes, from OpenSSL's libcrypto (already linked through libcurl).
enum Secrets {
    /// `count` bytes from the system's CSPRNG (RAND_bytes draws on getrandom).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        // RAND_bytes fails only when the system cannot give randomness at all; then nothing is safe to hand out.
        precondition(ok == 1, "the system's random number generator failed")
        return bytes
    }

    /// A token of 32 random bytes in base64url without padding (valid in a cookie and a form).
    static func token() -> String {
        Data(randomBytes(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A code of `digits` decimal digits, uniform (bytes over the largest multiple of 10^digits are drawn again).
    static func digits(_ digits: Int) -> String {
        let modulus = (0..<digits).reduce(UInt32(1)) { value, _ in value * 10 }
        let limit = UInt32.max - UInt32.max % modulus
        while true {
            let value = randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if value < limit {
                let text = String(value % modulus)
                return String(repeating: "0", count: digits - text.count) + text
            }
        }
    }

    /// SHA-256 of the text, in lowercase hex.
    static func sha256(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { SHA256(input.baseAddress, input.count, $0.baseAddress) }
        }
        return digest.hexDigits()
    }

    /// Compares two secrets in time that does not depend on where they differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
