import Foundation

/// Where the start went: from the process's start (the kernel's record of it) to each step of
/// `Station.run`, and to the first screen, which the station logs once ("started in …").
public struct StartupTimes: Sendable {
    /// How long the process had run when `Station.run` began: the dynamic loader, the Swift runtime and
    /// reading the config.
    public let beforeRun: Duration?
    private let began = ContinuousClock.now
    private var marks: [(step: String, at: ContinuousClock.Instant)] = []

    public init() { beforeRun = Self.processAge() }

    /// `step` is done now.
    public mutating func mark(_ step: String) { marks.append((step, .now)) }

    /// "412 ms: before run 95 ms, store 12 ms, devices 240 ms, services 20 ms, first screen 45 ms".
    public func summary(firstScreenAt shown: ContinuousClock.Instant) -> String {
        var parts: [String] = []
        if let beforeRun { parts.append("before run \(beforeRun.milliseconds) ms") }
        var last = began
        for mark in marks {
            parts.append("\(mark.step) \((mark.at - last).milliseconds) ms")
            last = mark.at
        }
        parts.append("first screen \((shown - last).milliseconds) ms")
        let total = (shown - began) + (beforeRun ?? .zero)
        return "\(total.milliseconds) ms: " + parts.joined(separator: ", ")
    }

    /// The process's age from /proc/self/stat's start time (in clock ticks since boot) and the
    /// system's uptime; nil where /proc says nothing.
    static func processAge() -> Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8)
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command's name: field 3 is the state, so the start time (field 22) is the 20th here.
        guard fields.count > 19, let ticks = Double(fields[19]),
            let now = uptime.split(separator: " ").first.flatMap({ Double($0) })
        else { return nil }
        let age = now - ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
        return age >= 0 ? .milliseconds(Int64(age * 1000)) : nil
    }
}
