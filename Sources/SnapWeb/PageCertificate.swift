internal import CLibCrypto
import Foundation
import SnapCore
import SnapFiles

/// The page's own certificate, for `web.tls = "self-signed"`: made by the station on its first start with
/// that setting (a P-256 key, libcrypto), kept in the state folder (`tls/cert.pem`, `tls/key.pem`, the key
/// readable by the station only) and used from then on, so a browser that was told to trust it once is
/// not asked again. Browsers warn about a certificate nobody vouches for; the pairing screen shows its
/// fingerprint, which the owner compares with the one the browser shows before going on. To make a new
/// one, delete the `tls` folder. Valid 10 years: a station has no one to renew it, and browsers do not
/// hold self-signed certificates to the public 398-day limit.
public struct PageCertificate: Sendable, Hashable {
    public var certificatePath: String
    public var keyPath: String
    /// The certificate's SHA-256 as browsers show it: "3F:A2:…", 32 bytes.
    public var fingerprint: String

    public static let days = 3650

    /// What went wrong making or reading it.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The certificate kept in `folder`, made when there is none. `names` go into it as DNS names and
    /// `addresses` as IP addresses (the first name is its subject).
    public static func kept(in folder: String, names: [String], addresses: [String]) throws -> PageCertificate {
        let certificatePath = folder + "/cert.pem"
        let keyPath = folder + "/key.pem"
        AtomicFile.removeLeftovers(in: folder)
        // Kept only as a pair: a stop between writing a new key and its certificate leaves the old
        // certificate beside the new key, and then both are made again.
        if let pem = try? String(contentsOfFile: certificatePath, encoding: .utf8),
            let key = try? String(contentsOfFile: keyPath, encoding: .utf8),
            ss_key_matches_certificate(pem, key) == 1, let fingerprint = fingerprint(ofPEM: pem)
        {
            return PageCertificate(certificatePath: certificatePath, keyPath: keyPath, fingerprint: fingerprint)
        }
        let alternatives = (names.map { "DNS:\($0)" } + addresses.map { "IP:\($0)" }).joined(separator: ",")
        var certificate: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        var digest = [UInt8](repeating: 0, count: 32)
        let step = ss_self_signed(
            names.first ?? "snapstation.local", alternatives, Int32(days), &certificate, &key, &digest)
        defer {
            free(certificate)
            free(key)
        }
        guard step == 0, let certificate, let key else {
            throw Failure(description: "libcrypto could not make the page's certificate (step \(step))")
        }
        do {
            try AtomicFile.createFolder(folder)
            // The key first: a certificate without its key would be taken as made.
            try AtomicFile.write(Array(String(cString: key).utf8), to: keyPath, permissions: 0o600)
            try AtomicFile.write(Array(String(cString: certificate).utf8), to: certificatePath, permissions: 0o644)
        } catch {
            throw Failure(description: "cannot keep the page's certificate in \(folder): \(error)")
        }
        return PageCertificate(certificatePath: certificatePath, keyPath: keyPath, fingerprint: Self.hex(digest))
    }

    /// The SHA-256 of a PEM certificate, as browsers show it; nil when it is not one.
    public static func fingerprint(ofPEM pem: String) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        guard ss_certificate_fingerprint(pem, &digest) == 0 else { return nil }
        return hex(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.hexDigits(uppercase: true, separator: ":")
    }
}
