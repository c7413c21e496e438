import Foundation
import Testing

/// The trait of a suite whose tests start other programs: the real station, the stand-ins, Mosquitto,
/// PostgreSQL's clients. At most `ProcessSlots.width` of their tests run at once, whatever the pure
/// suites beside them do: Swift Testing runs every suite side by side, and on a 2-core machine dozens of
/// debug binaries and Python servers started together left each of them seconds late, which the tests'
/// waits then had to absorb. The pure suites still run at full width. Each test (each case of a
/// parameterized one) takes a slot for its whole run, its instance's `init` included.
public struct StartsProcesses: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let asked = ContinuousClock.now
        await ProcessSlots.shared.take()
        let started = ContinuousClock.now
        // The test's own time, apart from its wait for a slot (Swift Testing's counts both), for
        // `Tests/run --stress`'s slowest tests (Tests/Support/slowest_tests.py reads this line).
        defer {
            let ran = (ContinuousClock.now - started).seconds
            let waited = (started - asked).seconds
            print(
                "◇ Slot: \"\(test.displayName ?? test.name)\" ran \(String(format: "%.3f", ran)) s, waited \(String(format: "%.3f", waited)) s"
            )
        }
        do {
            try await function()
        } catch {
            await ProcessSlots.shared.give()
            throw error
        }
        await ProcessSlots.shared.give()
    }
}

extension Trait where Self == StartsProcesses {
    /// This suite's tests start other programs: they run a few at a time (`StartsProcesses`).
    public static var startsProcesses: Self { Self() }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// The slots `StartsProcesses` tests take, first come first served.
public actor ProcessSlots {
    /// How many such tests run at once: `$SNAPSTATION_TEST_PROCESSES`, else 3 (on this machine's 2 cores:
    /// most of these tests wait on their programs rather than compute).
    public static let width =
        ProcessInfo.processInfo.environment["SNAPSTATION_TEST_PROCESSES"].flatMap(Int.init)
        .map { max(1, $0) } ?? 3
    public static let shared = ProcessSlots(width: width)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { free = width }

    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
