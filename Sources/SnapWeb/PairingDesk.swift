import Foundation
import SnapCore
import Synchronization

/// The one-time codes that pair a browser with the page, and the brake on guessing them.
///
/// A code is opened at the station (the pairing screen shows it), is valid for five minutes and for one
/// use, and is dropped after `wrongPerCode` wrong tries. Wrong tries are also limited to
/// `wrongPerMinute` a minute across all browsers: a guesser gets about 25 tries at a million codes in
/// a code's life. The cost is that a guesser can make the owner wait a minute; the owner is at the
/// station and can open a new code.
public final class PairingDesk: Sendable {
    public static let validity: TimeInterval = 300
    public static let wrongPerMinute = 5
    public static let wrongPerCode = 10

    /// What a code someone typed did.
    public enum Outcome: Sendable, Equatable {
        case paired
        case wrong
        /// No code is open (none was, it expired, or it was used).
        case noCode
        /// Too many wrong codes: try again after this many seconds.
        case wait(Int)
    }

    private struct State {
        var code: String?
        var expiresAt = Date.distantPast
        var wrongForCode = 0
        var wrongTimes: [Date] = []
        var url = ""
    }

    private let state = Mutex(State())

    public init() {}

    /// The address the QR code shows; set once the server listens ("" while it does not).
    public var url: String {
        get { state.withLock { $0.url } }
        set { state.withLock { $0.url = newValue } }
    }

    /// Opens a new code, replacing any open one.
    public func open(now: Date) -> Pairing {
        let code = Secrets.digits(6)
        return state.withLock { state in
            state.code = code
            state.expiresAt = now.addingTimeInterval(Self.validity)
            state.wrongForCode = 0
            return Pairing(url: state.url, code: code, expiresAt: state.expiresAt)
        }
    }

    /// Checks a typed code (spaces ignored); a right one is used up.
    public func redeem(_ typed: String, now: Date) -> Outcome {
        let typed = typed.filter { !$0.isWhitespace }
        return state.withLock { state in
            state.wrongTimes.removeAll { now.timeIntervalSince($0) >= 60 }
            if state.wrongTimes.count >= Self.wrongPerMinute, let first = state.wrongTimes.first {
                return .wait(max(1, Int((60 - now.timeIntervalSince(first)).rounded(.up))))
            }
            guard let code = state.code, now < state.expiresAt else {
                state.code = nil
                return .noCode
            }
            if Secrets.equal(typed, code) {
                state.code = nil
                return .paired
            }
            state.wrongTimes.append(now)
            state.wrongForCode += 1
            if state.wrongForCode >= Self.wrongPerCode { state.code = nil }
            return .wrong
        }
    }
}
