import Foundation
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore
import SnapTestSupport
import Testing

/// Power cuts on the real station: the binary in group and meal mode against the AI and Supabase
/// stand-ins (the latter on a real PostgreSQL), killed with SIGKILL at random instants across the
/// countdown, capture, processing, storing, upload and analysis. After each kill and each restart the
/// store must be sound and whole; at the end every queue drains, no photo is delivered twice, and no
/// request is counted twice or lost.
///
/// 30 cycles in `Tests/run`; `SNAPSTATION_POWERCUT_CYCLES=200` (Tests/Benchmarks/reliability.sh --long)
/// for the long run.
@Suite(
    "Power cuts on the real station", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct PowerCutSuiteTests {
    let folder = TemporaryDirectory("powercuts")
    let fake: FakeServices
    var state: String { folder.path + "/state" }

    /// Access tokens of 3 s: the kills land in sign-ins and refreshes too (the station signs in as a
    /// Supabase Auth user and keeps its rotating refresh token across the kills).
    init() async throws { fake = try await FakeServices(jwtExpiry: 3) }

    static var cycles: Int {
        Int(ProcessInfo.processInfo.environment["SNAPSTATION_POWERCUT_CYCLES"] ?? "") ?? 30
    }

    private func config(mode: StationMode, group: String, member: FakeServices.Member) throws -> String {
        try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"\(mode.rawValue)\"", "name = \"Kitchen\""],
                "display": ["idle_seconds = 0"],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "auto_save_seconds = 1", "daily_limit = 1000", "timeout_seconds = 20",
                ],
                "group": [
                    "name = \"\(group)\"", "review_seconds = 1", "backend = \"supabase\"", "url = \"\(fake.baseURL)\"",
                    "email = \"\(member.email)\"", "key_source = \"env:SNAPSTATION_TEST_GROUP_KEY\"",
                    "anon_key = \"\(member.anonKey)\"",
                ],
            ])
    }

    private func start(_ config: String, member: FakeServices.Member, script: String, log: String) throws
        -> StationProcess
    {
        try StationProcess(
            ["run", "--config", config, "--state", state, "--no-stdin", "--script", script],
            logPath: folder.path + "/\(log).log",
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key", "SNAPSTATION_TEST_GROUP_KEY": member.password])
    }

    /// What must hold after any kill: a sound database, every file a row names there and whole.
    private func checkAfterKill(_ cycle: Int) throws -> [String] {
        let audit = try StationStore(directory: state).audit()
        var problems: [String] = []
        if audit.integrity != "ok" { problems.append("cycle \(cycle): integrity \(audit.integrity)") }
        for path in audit.missingFiles { problems.append("cycle \(cycle): a row names a missing file \(path)") }
        for path in audit.namedFiles where path.hasSuffix(".jpg") && !audit.missingFiles.contains(path) {
            let warnings = JPEGWarnings()
            guard let bytes = FileBytes.readIfPresent(path), (try? JPEG.decode(bytes, warnings: warnings)) != nil,
                warnings.messages.isEmpty
            else {
                problems.append("cycle \(cycle): \(path) is not whole")
                continue
            }
        }
        return problems
    }

    @Test("should keep the store whole, deliver each photo once and count each answer once, through random kills")
    func randomKills() async throws {
        let kitchen = try await fake.member("Kitchen", of: "G0")
        var generator = SystemRandomNumberGenerator()
        var problems: [String] = []
        var kills = 0
        var phases: [String: Int] = [:]
        for cycle in 0..<Self.cycles {
            let mode: StationMode = cycle % 2 == 0 ? .group : .meal
            let group = "G\(cycle / 2)"
            if cycle > 1, mode == .group { _ = try await fake.member("Kitchen", of: group, as: kitchen) }
            let fault = ["ok", "ok", "timeout", "503"].randomElement(using: &generator)!
            try await fake.queue(mode == .group ? "storage" : "openai", [fault])
            let config = try config(mode: mode, group: group, member: kitchen)
            let started = Date()
            let station = try start(config, member: kitchen, script: "0.3s press", log: "cycle-\(cycle)")
            // A restart clears what the last kill left: no temporary file older than this start survives it.
            if await station.waitFor("station ready") {
                let stale = try StationStore(directory: state).audit().temporaryFiles.filter {
                    ((try? FileManager.default.attributesOfItem(atPath: $0)[.modificationDate]) as? Date ?? .now)
                        < started
                }
                problems += stale.map { "cycle \(cycle): \($0) survived the restart" }
            } else {
                problems.append("cycle \(cycle): the station never said it was ready")
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 100...4500, using: &generator)))
            let phase = station.output.components(separatedBy: "screen: ").last?.prefix { $0 != "\n" } ?? "start"
            phases[String(phase), default: 0] += 1
            await station.stop(SIGKILL)
            kills += 1
            problems += try checkAfterKill(cycle)
        }

        // A last run without faults (those queued for runs killed before they met them, forgotten): every
        // queue drains.
        try await fake.clearFaults()
        let last = try start(
            config(mode: .meal, group: "G0", member: kitchen), member: kitchen, script: "", log: "drain")
        // Ready first: the queues may already be empty, and a stop before the station has its signal
        // handlers would be a kill, not the clean stop asserted below.
        #expect(await last.waitFor("station ready"))
        let drained = await StationProcess.waitUntil {
            guard let audit = try? StationStore(directory: state).audit() else { return false }
            return (audit.uploads["pending"] ?? 0) == 0 && (audit.analyses["pending"] ?? 0) == 0
                && (audit.analyses["active"] ?? 0) == 0
        }
        // Answers waiting for review are shown one by one and saved by themselves after a second.
        // (No row in that state is no key in the audit: zero, not "not yet".)
        let reviewed = await StationProcess.waitUntil {
            guard let audit = try? StationStore(directory: state).audit() else { return false }
            return (audit.analyses["answered"] ?? 0) == 0
        }
        let status = await last.stop()
        #expect(status == 0, "the last run's exit status \(status): \(last.output.suffix(3000))")
        let logs = (try FileManager.default.contentsOfDirectory(atPath: folder.path)).filter { $0.hasSuffix(".log") }
            .compactMap { try? String(contentsOfFile: folder.path + "/" + $0, encoding: .utf8) }
        let signIns = logs.map { $0.components(separatedBy: "signed in as").count - 1 }.reduce(0, +)
        let refreshes = logs.map { $0.components(separatedBy: "access token renewed").count - 1 }.reduce(0, +)
        let audit = try StationStore(directory: state).audit()
        let rows = try await fake.rows()
        let served = try await fake.requests().filter {
            $0["path"] as? String == "/v1/chat/completions" && $0["fault"] as? String == "ok"
        }.count
        print(
            """
            power cuts: \(kills) kills (\(phases.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))); \
            uploads \(audit.uploads), analyses \(audit.analyses), AI answers counted \(audit.aiUses) of \(served) served, \
            rows on the server \(rows.count), problems \(problems.count); group sign-ins \(signIns), refreshes \(refreshes)
            """)
        #expect(problems.isEmpty, "\(problems)")
        #expect(drained, "the queues drained after the kills: \(audit.uploads) \(audit.analyses)")
        #expect(reviewed, "every answer was shown and saved: \(audit.analyses)")
        #expect(audit.temporaryFiles.isEmpty, "\(audit.temporaryFiles)")
        // Exactly once: every delivered photo has one row on the server, and the server holds no other.
        let serverIDs = rows.compactMap { $0["photo_id"] as? String }
        #expect(Set(serverIDs).count == serverIDs.count, "no photo delivered twice")
        #expect(Set(serverIDs) == Set(audit.delivered.map(\.rawValue)), "the server and the queue agree")
        // Each group's day is claimed by the station exactly when its photo is on the server or queued.
        let days = audit.claimedDays.filter { !$0.value.isEmpty }.count
        #expect(days == serverIDs.count + (audit.uploads["pending"] ?? 0), "no day spent twice or lost")
        // Each answer counted once: the count is the number of jobs holding an answer, never more than served.
        #expect(audit.aiUses == audit.answeredJobs, "counted once per answer")
        #expect(audit.aiUses <= served)
    }
}
