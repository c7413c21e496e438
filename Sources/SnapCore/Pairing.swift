import Foundation

/// A pairing of the owner's page, open on the station's screen: the page's address (shown as a QR code)
/// and the one-time code a browser must give, valid until `expiresAt` and for one use.
public struct Pairing: Sendable, Hashable {
    public var url: String
    public var code: String
    public var expiresAt: Date
    /// The SHA-256 of the page's self-signed certificate ("3F:A2:…"), for the owner to compare with the
    /// browser's warning; nil when the page has none.
    public var fingerprint: String?
    /// The page's address, shown beside a `url` that carries the station's `.local` name.
    public var fallback: String?

    public init(url: String, code: String, expiresAt: Date, fingerprint: String? = nil, fallback: String? = nil) {
        self.url = url
        self.code = code
        self.expiresAt = expiresAt
        self.fingerprint = fingerprint
        self.fallback = fallback
    }
}

/// The pairing screen: the QR code and the code, how long they are valid, and what just happened.
public struct PairingScreen: Sendable, Hashable {
    public enum Note: Sendable, Hashable {
        case none
        /// A browser gave the code: it is paired, named as it said.
        case paired(String)
        /// A hold forgot every paired browser.
        case forgotten
    }
    /// Nil while the code is being made.
    public var pairing: Pairing?
    public var remaining: Duration?
    public var note: Note

    public init(pairing: Pairing?, remaining: Duration?, note: Note = .none) {
        self.pairing = pairing
        self.remaining = remaining
        self.note = note
    }
}
