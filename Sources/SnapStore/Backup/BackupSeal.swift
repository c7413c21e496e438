internal import CLibCrypto
import Foundation

/// A backup sealed with the owner's passphrase: the tar encrypted whole, as it streams, so that the keys it
/// then holds (and the meals and photos beside them) are read by no one without the passphrase.
///
///     "SnapSeal" 1 log2(N) r p   salt (16 bytes)   check (16 bytes)     the seal's head, 44 bytes
///     piece 0, piece 1, …                                               each ≤ 64 KiB sealed, + 16-byte tag
///
/// - The key: scrypt (RFC 7914, libcrypto's `EVP_PBE_scrypt`) of the passphrase (its Unicode NFC form, so
///   that a phone's keyboard and a computer's type the same bytes) with a random salt, N = 2^13, r = 8,
///   p = 10: OWASP's Password Storage Cheat Sheet's equivalent of its N = 2^17 minimum (the same work in
///   ten passes), at 8 MiB for a moment instead of 128: the station makes a backup while it takes photos,
///   a Pi 3 has 1 GiB, and a backup grows the station by at most 10 MB (issue 37; N = 2^14, p = 5 took
///   16 MiB, docs/benchmarks.md, and its files stay readable: the cost is in the head). Its
///   64 bytes are the key (32) and the check (16 of the rest), kept in the head so that a wrong passphrase
///   is told from a damaged file before a byte is unpacked. The cost is in the head: a later station may
///   raise it and this one still reads it, within bounds (`readable`).
/// - The pieces: ChaCha20-Poly1305 (RFC 8439, libcrypto's EVP), chosen over AES-GCM because the
///   Raspberry Pi 3 and 4 have no AES instructions (ChaCha20 is several times faster there in software)
///   and it is as strong. Each piece's nonce is its number (11 bytes, big-endian) and a last-piece flag
///   (1 byte), the STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár 2015): the key is the file's
///   own (the salt is new each time), so a number never repeats under it; a piece moved, dropped or added
///   fails its tag, and a file cut after a whole piece lacks the flagged last one. The head is each
///   piece's associated data.
///
/// libcrypto rather than libsodium: the station links it already (libcurl, the page's certificate), and it
/// has both parts; libsodium's Argon2id would be one more library on the image for the same protection.
struct BackupSeal {
    static let magic = Array("SnapSeal".utf8)
    static let headSize = 44
    static let pieceSize = 64 * 1024
    static let tagSize = 16

    /// scrypt's cost.
    struct Cost: Equatable {
        var log2N: UInt8
        var r: UInt8
        var p: UInt8

        static let standard = Cost(log2N: 13, r: 8, p: 10)

        /// What a head may be: scrypt's own bounds (N = 2^1 to 2^20, r and p from 1).
        var readable: Bool { (1...20).contains(log2N) && r >= 1 && p >= 1 }

        /// What a head may ask of the station: at most 4 times the standard work (p · N · r), at most 64 MiB,
        /// and N below 2^(16 r) (RFC 7914's bound, which libcrypto refuses past), so that a file made to
        /// stall or exhaust the station is refused before any work; a later station may raise the standard
        /// within that.
        var bearable: Bool {
            let work = Int(p) * (1 << Int(log2N)) * Int(r)
            let standard = Int(Self.standard.p) * (1 << Int(Self.standard.log2N)) * Int(Self.standard.r)
            return (10...20).contains(log2N) && work <= 4 * standard && memory <= 64 << 20
                && Int(log2N) < 16 * Int(r)
        }

        /// scrypt's memory: 128 · N · r bytes.
        var memory: Int { 128 * (1 << Int(log2N)) * Int(r) }
    }

    let head: [UInt8]
    private let key: [UInt8]

    /// A new seal for `passphrase`: a new salt, the standard cost.
    init(passphrase: String, cost: Cost = .standard) throws(BackupProblem) {
        var salt = [UInt8](repeating: 0, count: 16)
        guard salt.withUnsafeMutableBufferPointer({ RAND_bytes($0.baseAddress, 16) }) == 1 else {
            throw .failed("no random bytes for the backup's seal")
        }
        let derived = try Self.derive(passphrase, salt: salt, cost: cost)
        key = Array(derived[0..<32])
        head = Self.magic + [1, cost.log2N, cost.r, cost.p] + salt + derived[32..<48]
    }

    /// The seal of a file whose head is `head`, opened with `passphrase`: `.wrongPassphrase` when its check
    /// differs, `.notABackup` when the head is not one this station reads.
    init(head: [UInt8], passphrase: String) throws(BackupProblem) {
        guard head.count == Self.headSize, Array(head[0..<8]) == Self.magic, head[8] == 1 else { throw .notABackup }
        let cost = Cost(log2N: head[9], r: head[10], p: head[11])
        guard cost.readable else { throw .notABackup }
        guard cost.bearable else { throw .tooMuchWork }
        let derived = try Self.derive(passphrase, salt: Array(head[12..<28]), cost: cost)
        guard Array(derived[32..<48]) == Array(head[28..<44]) else { throw .wrongPassphrase }
        key = Array(derived[0..<32])
        self.head = head
    }

    /// Whether the file's first bytes are a seal's.
    static func isSealed(_ start: [UInt8]) -> Bool { start.starts(with: magic) }

    private static func derive(_ passphrase: String, salt: [UInt8], cost: Cost) throws(BackupProblem) -> [UInt8] {
        let secret = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
        var derived = [UInt8](repeating: 0, count: 64)
        let done = secret.withUnsafeBufferPointer { secret in
            EVP_PBE_scrypt(
                secret.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, secret.count,
                salt, salt.count, 1 << UInt64(cost.log2N), UInt64(cost.r), UInt64(cost.p),
                UInt64(cost.memory + (1 << 20)), &derived, derived.count)
        }
        guard done == 1 else { throw .failed("scrypt failed (out of memory?)") }
        return derived
    }

    private func nonce(_ number: UInt64, last: Bool) -> [UInt8] {
        [0, 0, 0] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: number >> (8 * UInt64($0))) } + [last ? 1 : 0]
    }

    /// Piece `number` sealed: its bytes encrypted, then its tag.
    func seal(_ plain: UnsafeRawBufferPointer, number: UInt64, last: Bool) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plain.count + Self.tagSize)
        let done = out.withUnsafeMutableBufferPointer { out in
            ss_chacha_poly(
                0, key, nonce(number, last: last), head, Int32(head.count),
                plain.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(plain.count), out.baseAddress,
                out.baseAddress! + plain.count)
        }
        // Sealing fails only when libcrypto is out of memory: nothing is safe to write then.
        guard done == 1 else { fatalError("libcrypto could not seal a backup's piece") }
        return out
    }

    /// Piece `number` opened into `plain` (as long as its bytes): false when its tag does not match.
    func open(_ sealed: UnsafeRawBufferPointer, number: UInt64, last: Bool, into plain: UnsafeMutableRawPointer)
        -> Bool
    {
        guard sealed.count >= Self.tagSize, let start = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return false
        }
        let length = sealed.count - Self.tagSize
        return ss_chacha_poly(
            1, key, nonce(number, last: last), head, Int32(head.count), start, Int32(length),
            plain.assumingMemoryBound(to: UInt8.self), UnsafeMutablePointer(mutating: start + length)) == 1
    }
}

/// The tar's pieces sealed as they come (`BackupSeal`): the head first, then a piece of 64 KiB each time
/// more than that is at hand, and the rest as the flagged last one.
final class BackupSealer {
    private let seal: BackupSeal
    private var pending: [UInt8] = []
    private var number: UInt64 = 0
    private var started = false
    private var ended = false

    init(_ seal: BackupSeal) { self.seal = seal }

    func next(from source: () throws(BackupProblem) -> [UInt8]?) throws(BackupProblem) -> [UInt8]? {
        guard started else {
            started = true
            return seal.head
        }
        guard !ended else { return nil }
        while pending.count <= BackupSeal.pieceSize, let more = try source() { pending += more }
        let last = pending.count <= BackupSeal.pieceSize
        let count = min(pending.count, BackupSeal.pieceSize)
        let sealed = pending.withUnsafeBytes {
            seal.seal(UnsafeRawBufferPointer(rebasing: $0[..<count]), number: number, last: last)
        }
        pending.removeFirst(count)
        number += 1
        ended = last
        return sealed
    }
}
