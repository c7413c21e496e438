internal import CLibCrypto
import SnapCore

/// SHA-256 over bytes that come in pieces (libcrypto's EVP digest): a backup's files are hashed as they
/// stream, never held whole.
final class SHA256Stream {
    private let context: OpaquePointer

    init() {
        // EVP_MD_CTX_new fails only when out of memory.
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not make a digest context") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
    }

    func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest in lowercase hex, as `sha256sum` writes it; the stream starts again after it.
    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        return digest.hexDigits()
    }
}
