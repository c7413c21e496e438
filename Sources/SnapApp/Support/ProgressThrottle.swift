/// Lets through only the progress a person can see: libcurl reports every few kilobytes, and each
/// report would become a transition and a redraw. A fraction passes when it is the first, the last
/// (1.0), or both at least `step` further and `interval` later than the last one that passed.
struct ProgressThrottle: Sendable {
    var step = 0.01
    var interval = Duration.milliseconds(100)
    private var last: (fraction: Double, at: ContinuousClock.Instant)?

    /// Whether `fraction` should be shown; remembers it if so.
    mutating func admits(_ fraction: Double, now: ContinuousClock.Instant = .now) -> Bool {
        if let last, fraction < 1 {
            guard fraction - last.fraction >= step, now - last.at >= interval else { return false }
        }
        last = (fraction, now)
        return true
    }
}
