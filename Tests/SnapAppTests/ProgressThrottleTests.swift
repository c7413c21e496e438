import Testing

@testable import SnapApp

@Suite("Upload progress throttle")
struct ProgressThrottleTests {
    @Test("should pass the first and last report, and at most one per step and interval between")
    func throttles() {
        var throttle = ProgressThrottle()
        let start = ContinuousClock.now
        var passed: [Double] = []
        // libcurl's pace: a report every 2 ms, 0.1 % of the photo each.
        for tick in 0...1000 {
            let fraction = Double(tick) / 1000
            if throttle.admits(fraction, now: start + .milliseconds(2 * tick)) { passed.append(fraction) }
        }
        #expect(passed.first == 0 && passed.last == 1)
        #expect(passed.count <= 22, "two seconds at 10 a second, plus the last: \(passed.count)")
        #expect(zip(passed, passed.dropFirst()).allSatisfy { $1 - $0 >= 0.01 })
    }
}
