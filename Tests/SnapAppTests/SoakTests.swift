import Foundation
import SnapTestSupport
import Testing

/// The simulated station through thousands of capture cycles, driven from its standard input as fast
/// as its screens allow: press on the ready screen, hold on the review (the capture is taken, processed
/// and stored, then not shared). Memory and open descriptors are sampled; after a warm-up neither may
/// keep growing.
///
/// `SNAPSTATION_SOAK_CYCLES` sets the length: 2,000 in `Tests/run` (a minute or two), 10,000 for
/// the long run (Tests/Benchmarks/reliability.sh --long), whose figures docs/benchmarks.md reports.
@Suite("Soak: thousands of capture cycles", .serialized, .startsProcesses)
struct SoakTests {
    let folder = TemporaryDirectory("soak")

    static var cycles: Int { Int(ProcessInfo.processInfo.environment["SNAPSTATION_SOAK_CYCLES"] ?? "") ?? 2000 }

    /// The median of some samples: RSS moves by a few MB from one capture to the next (the allocator's
    /// arenas), so growth is judged between the medians of the first and the last third after the warm-up.
    static func median(_ values: [Int]) -> Int {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    @Test("should hold its memory and descriptors level over many captures")
    func soak() async throws {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "countdown": ["seconds = 0"], "group": ["name = \"Soak\"", "review_seconds = 30"],
                "display": ["idle_seconds = 0", "preview_png_fps = 0"], "storage": ["retention_hours = 1"],
            ])
        let log = folder.path + "/soak.log"
        let station = try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state"], logPath: log, typing: true)
        let follower = LogFollower(path: log)
        #expect(await follower.waitFor("screen: ready"), "the station did not start")
        let start = station.resources
        var samples: [(cycle: Int, rssKB: Int, descriptors: Int)] = []
        // The allocator's arenas and SQLite's page caches fill over the first thousand captures or so (measured:
        // +7 MB to cycle 1,300, then +0.3 MB over the next 2,000), so growth is judged after that.
        let warmUp = max(1, min(max(Self.cycles / 10, 1000), Self.cycles / 2))
        var completed = 0
        let began = ContinuousClock.now
        for cycle in 1...Self.cycles {
            station.type("press")
            guard await follower.waitFor("screen: group-review") else { break }
            station.type("hold")
            guard await follower.waitFor("screen: ready") else { break }
            completed = cycle
            if cycle % max(1, Self.cycles / 50) == 0 || cycle == warmUp {
                let now = station.resources
                samples.append((cycle, now.rssKB, now.descriptors))
            }
        }
        let elapsed = ContinuousClock.now - began
        #expect(await station.stop() == 0)
        #expect(completed == Self.cycles, "stopped after \(completed) cycles:\n\(station.output.suffix(2000))")
        let afterWarmUp = samples.first { $0.cycle >= warmUp }
        let end = samples.last
        _ = afterWarmUp
        let loop = station.output.split(separator: "\n").first { $0.contains("event loop:") } ?? ""
        print(
            """
            soak: \(completed) cycles in \(Int(elapsed.seconds)) s; RSS \(start.rssKB / 1024) MB at start, \
            \(afterWarmUp.map { "\($0.rssKB / 1024)" } ?? "?") MB after \(warmUp) cycles, \
            \(end.map { "\($0.rssKB / 1024)" } ?? "?") MB at the end; descriptors \(start.descriptors) → \
            \(end?.descriptors ?? 0); \(loop.split(separator: "]").last ?? "")
            """)
        print("soak samples (cycle, RSS kB, fds): \(samples.map { "(\($0.cycle), \($0.rssKB), \($0.descriptors))" })")
        let settled = samples.filter { $0.cycle >= warmUp }
        let third = max(1, settled.count / 3)
        let early = Self.median(settled.prefix(third).map(\.rssKB))
        let late = Self.median(settled.suffix(third).map(\.rssKB))
        print("soak: median RSS \(early) kB in the first third after the warm-up, \(late) kB in the last third")
        #expect(late - early < 1024, "under 1 MB of growth after the warm-up: \(early) → \(late) kB")
        #expect(
            (settled.map(\.descriptors).max() ?? 0) <= (settled.first?.descriptors ?? 0) + 1,
            "no descriptor growth (one may be open for a frame being written)")
    }
}
