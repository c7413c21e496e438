import Foundation
import SnapCore
import SnapFiles
import Synchronization

/// The one-time codes that pair a browser with the page, and the brake on guessing them.
///
/// A code is opened at the station (the pairing screen shows it) or by the owner's page for a household
/// member's phone (`invite`), is valid for five minutes and for one use. The brakes, chosen so that nobody on the network can keep the owner from pairing:
/// - **Wrong codes are counted per client** (an IPv4 address, or an IPv6 /64, which one machine can fill
///   with addresses): `wrongPerMinute` a minute each. A client over its limit waits; the others do not.
/// - **A code takes `wrongPerCode` wrong tries from everyone together; past that only clients that have
///   not typed a wrong code for it are heard**, one try each. The code stays as the station shows it: an
///   earlier design replaced it instead, which let 100 flooding addresses make the code on the screen stale
///   every few seconds, the very jam this prevents. The owner, who has typed nothing wrong, is always
///   heard; an owner who mistyped once past the ceiling waits for the code's end or holds the button for
///   a new one.
/// - **The answer to a wrong code is the answer to no code**: nobody learns when a code is open.
///
/// The length follows from the numbers (`guessChance`): a code hears at most `wrongPerCode` wrong tries
/// plus one a client, and at most 25 a client in its five minutes. 20 addresses make 70 guesses; against
/// 10^8 codes that is 1 in 1.4 million, and a whole /24 of 254 addresses 1 in 330,000 (six digits would
/// be 1 in 14,000 and 1 in 3,300).
public final class PairingDesk: Sendable {
    public static let validity: TimeInterval = 300
    public static let digits = 8
    public static let wrongPerMinute = 5
    public static let wrongPerCode = 50

    /// What a code someone typed did.
    public enum Outcome: Sendable, Equatable {
        /// Paired; `invited`: with a code the owner's page opened, for a household member's phone, whose
        /// meals are `person`'s when the owner said whose (nil: the member says it on their first meal).
        case paired(invited: Bool, person: PersonID?)
        /// Not the code, or no code open (the same to the one who typed it).
        case wrong
        /// This client typed too many wrong codes (a minute's, or one past the code's ceiling): it may try
        /// again after this many seconds.
        case wait(Int)
    }

    private struct State {
        var code: String?
        /// The open code was opened by the owner's page (`invite`), not at the station.
        var invited = false
        /// Whose phone the owner's page invited, when it said.
        var person: PersonID?
        var expiresAt = Date.distantPast
        var wrongForCode = 0
        /// The clients that typed a wrong code while this one was open.
        var guessed: Set<String> = []
        /// Each client's wrong tries in the last minute.
        var wrongTimes: [String: [Date]] = [:]
        var url = ""
        var fallback: String?
        var fingerprint: String?
    }

    private let state = Lock(State())

    public init() {}

    /// The address the QR code shows; set once the server listens ("" while it does not).
    public var url: String {
        get { state.withLock { $0.url } }
        set { state.withLock { $0.url = newValue } }
    }

    /// The page's address when `url` carries its `.local` name: for a phone that does not resolve it.
    public var fallback: String? {
        get { state.withLock { $0.fallback } }
        set { state.withLock { $0.fallback = newValue } }
    }

    /// The fingerprint of the page's self-signed certificate, for the pairing screen.
    public var fingerprint: String? {
        get { state.withLock { $0.fingerprint } }
        set { state.withLock { $0.fingerprint = newValue } }
    }

    /// Opens a new code at the station, replacing any open one.
    public func open(now: Date) -> Pairing { open(now: now, invited: false, person: nil) }

    /// Opens a new code for a household member's phone, asked by the owner's page; it replaces any open
    /// one (the station's pairing screen then shows a stale code, as after a second hold). `person`: whose
    /// phone it is, when the owner said.
    public func invite(now: Date, for person: PersonID?) -> Pairing { open(now: now, invited: true, person: person) }

    private func open(now: Date, invited: Bool, person: PersonID?) -> Pairing {
        state.withLock { state in
            state.expiresAt = now.addingTimeInterval(Self.validity)
            state.invited = invited
            state.person = person
            return Self.newCode(&state)
        }
    }

    /// Closes the open code (the station's pairing screen closed).
    public func close() { state.withLock { $0.code = nil } }

    /// A new code in `state`, for the rest of its window.
    private static func newCode(_ state: inout State) -> Pairing {
        state.code = Secrets.digits(digits)
        state.wrongForCode = 0
        state.guessed = []
        return Pairing(
            url: state.url, code: state.code!, expiresAt: state.expiresAt, fingerprint: state.fingerprint,
            fallback: state.fallback)
    }

    /// Checks a code `client` typed (spaces ignored); a right one is used up.
    public func redeem(_ typed: String, client: String, now: Date) -> Outcome {
        let typed = typed.filter { !$0.isWhitespace && $0 != "-" }
        let client = Self.clientKey(client)
        return state.withLock { state in
            for (key, times) in state.wrongTimes {
                let recent = times.filter { now.timeIntervalSince($0) < 60 }
                state.wrongTimes[key] = recent.isEmpty ? nil : recent
            }
            let mine = state.wrongTimes[client] ?? []
            if mine.count >= Self.wrongPerMinute, let first = mine.first {
                return .wait(max(1, Int((60 - now.timeIntervalSince(first)).rounded(.up))))
            }
            let open = state.code != nil && now < state.expiresAt
            if open, state.wrongForCode >= Self.wrongPerCode, state.guessed.contains(client) {
                return .wait(max(1, Int(state.expiresAt.timeIntervalSince(now).rounded(.up))))
            }
            if open, let code = state.code, Secrets.equal(typed, code) {
                state.code = nil
                return .paired(invited: state.invited, person: state.person)
            }
            state.wrongTimes[client, default: []].append(now)
            guard open else {
                state.code = nil
                return .wrong
            }
            state.wrongForCode += 1
            state.guessed.insert(client)
            return .wrong
        }
    }

    /// Who is counted as one client: an IPv4 address as it is, an IPv6 address by its /64 (the
    /// network a home router hands one machine).
    static func clientKey(_ address: String) -> String {
        guard address.contains(":") else { return address }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let prefix = withUnsafeBytes(of: &bytes) { Array($0.prefix(8)) }
        if prefix == [0, 0, 0, 0, 0, 0, 0, 0] { return address }  // ::1, an IPv4-mapped address
        return prefix.map { String($0, radix: 16) }.joined(separator: ".") + "/64"
    }

    /// The chance that `addresses` clients, each at the limit, guess an open code within its window:
    /// one minus the chance that every guess misses (each guess rules out one code at most). The guesses
    /// are each client's minute limit over the window, or the ceiling and one try a client past it,
    /// whichever is fewer.
    public static func guessChance(addresses: Int) -> Double {
        let guesses = min(Double(addresses * wrongPerMinute) * validity / 60, Double(wrongPerCode + addresses))
        let codes = pow(10, Double(digits))
        return 1 - pow(1 - 1 / codes, guesses)
    }
}
