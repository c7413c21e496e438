/// How long things waited, in a fixed-size histogram: the event loop's queue (from `send` to handling)
/// and the display (from `show` to the frame presented). Cheap enough to keep for every event of a
/// station that runs for months: 1 ms buckets up to a second, then one bucket for anything longer.
public struct LatencyStats: Sendable {
    private var buckets = [Int](repeating: 0, count: 1001)
    public private(set) var count = 0
    public private(set) var longest: Duration = .zero
    /// What waited longest, for the log.
    public private(set) var longestLabel = ""

    public init() {}

    public mutating func record(_ wait: Duration, label: @autoclosure () -> String = "") {
        count += 1
        let milliseconds = Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        buckets[min(max(0, milliseconds), 1000)] += 1
        if wait > longest {
            longest = wait
            longestLabel = label()
        }
    }

    /// The wait that `fraction` of the recorded ones did not exceed, in whole milliseconds (1000 means
    /// "a second or more").
    public func percentile(_ fraction: Double) -> Int {
        guard count > 0 else { return 0 }
        let target = Int((Double(count) * fraction).rounded(.up))
        var seen = 0
        for (milliseconds, number) in buckets.enumerated() {
            seen += number
            if seen >= target { return milliseconds }
        }
        return 1000
    }

    /// "12034 events; p50 0 ms, p99 3 ms, longest 41 ms (button(press))".
    public func summary(_ noun: String) -> String {
        let longestMS = Int((longest.seconds * 1000).rounded())
        return "\(count) \(noun); p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, longest \(longestMS) ms"
            + (longestLabel.isEmpty ? "" : " (\(longestLabel))")
    }
}
