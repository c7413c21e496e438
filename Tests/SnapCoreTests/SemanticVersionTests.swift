import SnapCore
import Testing

/// The order of system versions the updater refuses a downgrade by: semantic versioning's precedence.
@Suite("SemanticVersion: the order of system versions")
struct SemanticVersionTests {
    private func version(_ text: String) throws -> SemanticVersion {
        try #require(SemanticVersion(parsing: text), "\(text) is a version")
    }

    @Test("should order releases by each number as a number, and a pre-release before its release")
    func orders() throws {
        // semver.org §11's own list, then numbers past a digit and past an Int.
        let ascending = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.2.0", "1.9.0", "1.10.0", "1.10.1", "2.0.0-rc1", "2.0.0", "10.0.0",
            "99999999999999999999999.0.0",
        ]
        for (lower, higher) in zip(ascending, ascending.dropFirst()) {
            #expect(try version(lower) < version(higher), "\(lower) before \(higher)")
            #expect(!(try version(higher) < version(lower)), "\(higher) not before \(lower)")
            #expect(SemanticVersion.isOlder(lower, than: higher) && !SemanticVersion.isOlder(higher, than: lower))
        }
    }

    @Test("should take a version the same but for build metadata, a leading v or trailing zeros as the same")
    func same() throws {
        for (one, other) in [
            ("1.2.0", "1.2.0"), ("1.2.0", "1.2.0+3f2a9c1"), ("v1.2.0", "1.2.0"), ("1.2", "1.2.0"), ("01.2.0", "1.2.0"),
            ("2.0.0-rc.01", "2.0.0-rc.1"),
        ] {
            #expect(try version(one) == version(other), "\(one) is \(other)")
            #expect(!SemanticVersion.isOlder(one, than: other) && !SemanticVersion.isOlder(other, than: one))
        }
        #expect(try version("v1.2.0+build.7").description == "v1.2.0+build.7", "said as written")
    }

    @Test("should read no version from what is none, and order it before nothing")
    func refuses() {
        for text in [
            "", "v", "1..0", "1.0.", ".1", "1.0.0-", "1.0.0-rc..1", "1.0.0+", "1.0.0+a..b", "1.0.0-ré",
            "one", "1.0.0 ", "1.x", "1.0.0-rc_1", "١.٢.٣",
        ] {
            #expect(SemanticVersion(parsing: text) == nil, "\(text) is no version")
            #expect(!SemanticVersion.isOlder(text, than: "1.0.0") && !SemanticVersion.isOlder("1.0.0", than: text))
            #expect(SemanticVersion.needsConfirmation(text, over: "1.0.0"), "\(text): asked, not taken as newer")
            #expect(SemanticVersion.needsConfirmation("1.0.0", over: text))
        }
        #expect(SemanticVersion.needsConfirmation("0.9.0", over: "1.0.0"))
        #expect(!SemanticVersion.needsConfirmation("1.0.1", over: "1.0.0"))
        #expect(!SemanticVersion.needsConfirmation("1.0.0", over: "1.0.0"), "the same version again is no downgrade")
    }
}
