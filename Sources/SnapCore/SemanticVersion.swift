/// A system's version as the station orders them: semantic versioning's precedence (semver.org, 2.0.0,
/// §11). The release's numbers compare one by one as numbers ("1.10.0" after "1.9.0"; a missing one is 0,
/// so "1.2" is "1.2.0"); a pre-release comes before its release ("2.0.0-rc.1" before "2.0.0"), its
/// identifiers compared one by one (numbers as numbers and before words, words in ASCII order, more
/// identifiers after fewer); build metadata ("+abc123") does not count.
///
/// The updater refuses a bundle older than the running system unless the owner asks for it; two versions
/// the same but for their build metadata are the same release (a reinstall).
public struct SemanticVersion: Sendable, Comparable, CustomStringConvertible {
    /// One dot-separated part of a pre-release.
    enum Identifier: Sendable, Comparable {
        /// Digits without leading zeros: a number of any length orders (no `Int` to overflow).
        case number(String)
        case word(String)

        static func < (left: Identifier, right: Identifier) -> Bool {
            switch (left, right) {
            case (.number(let a), .number(let b)): Numeral.less(a, b)
            case (.number, .word): true
            case (.word, .number): false
            case (.word(let a), .word(let b)): Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            }
        }
    }

    /// The release's numbers, as digits without leading zeros.
    let release: [String]
    let preRelease: [Identifier]
    /// The version as it was written.
    public let description: String

    /// The version `text` holds ("1.2.0", "v2.0.0-rc.1", "0.1.0+3f2a9c1"), or nil where it is none: numbers
    /// of digits only, pre-release and build identifiers of `[0-9A-Za-z-]`, none of them empty.
    public init?(parsing text: String) {
        var rest = Substring(text)
        if rest.first == "v" || rest.first == "V" { rest = rest.dropFirst() }
        if let plus = rest.firstIndex(of: "+") {
            let build = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            guard build.allSatisfy(Self.isIdentifier) else { return nil }
            rest = rest[..<plus]
        }
        var preRelease: [Identifier] = []
        if let dash = rest.firstIndex(of: "-") {
            let parts = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.allSatisfy(Self.isIdentifier) else { return nil }
            preRelease = parts.map { $0.allSatisfy(\.isASCIIDigit) ? .number(Numeral.trimmed($0)) : .word(String($0)) }
            rest = rest[..<dash]
        }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        self.release = numbers.map(Numeral.trimmed)
        self.preRelease = preRelease
        self.description = text
    }

    /// Whether the version `candidate` comes before `reference`; false where either is no version this
    /// type reads (their order is not known).
    public static func isOlder(_ candidate: String, than reference: String) -> Bool {
        guard let candidate = SemanticVersion(parsing: candidate), let reference = SemanticVersion(parsing: reference)
        else { return false }
        return candidate < reference
    }

    /// Whether installing `candidate` over `reference` needs the owner's word: it comes before it, or
    /// either is no version this type reads (their order is not known, so it is not taken as newer: the
    /// check fails closed).
    public static func needsConfirmation(_ candidate: String, over reference: String) -> Bool {
        guard SemanticVersion(parsing: candidate) != nil, SemanticVersion(parsing: reference) != nil else {
            return true
        }
        return isOlder(candidate, than: reference)
    }

    public static func < (left: SemanticVersion, right: SemanticVersion) -> Bool {
        for index in 0..<max(left.release.count, right.release.count) {
            let a = index < left.release.count ? left.release[index] : "0"
            let b = index < right.release.count ? right.release[index] : "0"
            if a != b { return Numeral.less(a, b) }
        }
        switch (left.preRelease.isEmpty, right.preRelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): return left.preRelease.lexicographicallyPrecedes(right.preRelease)
        }
    }

    /// The same release: neither comes before the other (build metadata and trailing zeros aside).
    public static func == (left: SemanticVersion, right: SemanticVersion) -> Bool {
        !(left < right) && !(right < left)
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}

/// A number written in decimal digits, of any length.
private enum Numeral {
    static func trimmed(_ digits: Substring) -> String {
        let kept = digits.drop { $0 == "0" }
        return kept.isEmpty ? "0" : String(kept)
    }

    /// Whether `a` is less than `b`, both without leading zeros: the shorter, or the first to differ.
    static func less(_ a: String, _ b: String) -> Bool {
        a.count != b.count ? a.count < b.count : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
