import Foundation
import SnapTestSupport
import Testing

/// The real binary's updates against RAUC's stand-in (Tests/Fakes/rauc.py: rauc 1.8's client and its GRUB
/// backend's rules; the real RAUC runs in Tests/Update's VM): a slot marked good only after running,
/// `snapstation update install` over "SSH", the restart asked for at an idle moment, the new slot tried
/// and confirmed, and an update that did not start said on the display.
@Suite("Updates on the real binary, against RAUC's stand-in", .serialized, .startsProcesses)
struct UpdateEndToEndTests {
    let folder = TemporaryDirectory("update-e2e")
    var state: String { folder.path + "/state" }
    var restartFile: String { folder.path + "/run/reboot" }

    private func config(_ rauc: FakeRAUC) throws -> String {
        try StationFixture.writeConfig(
            in: folder.path,
            [
                "storage": ["dir = \"\(state)\""],
                // The ready screen stays up (a loaded machine may take a minute to the install): it is the
                // screen whose note the test reads.
                "display": ["idle_seconds = 0"],
                "update": [
                    "rauc = \"\(rauc.path)\"", "confirm_seconds = 5", "restart_file = \"\(restartFile)\"",
                ],
            ])
    }

    private func start(_ config: String, _ name: String) throws -> StationProcess {
        try StationProcess(
            ["run", "--config", config, "--simulate", "--state", state, "--no-stdin"],
            logPath: folder.path + "/\(name).log")
    }

    /// The station started on slot A (0.5.0), once it marked the slot good.
    private func startedGood(_ config: String) async throws -> StationProcess {
        let first = try start(config, "first")
        _ = await first.waitFor("(0.5.0) marked good")
        return first
    }

    /// `snapstation update install [OPTIONS] BUNDLE`, as over SSH: its exit status and what it said.
    private func install(_ bundle: String, _ config: String, _ options: String..., log: String = "install")
        async throws -> (Int32, String)
    {
        try await StationProcess.run(
            ["update", "install"] + options + [bundle, "--config", config], logPath: folder.path + "/\(log).log")
    }

    private func caption() -> String {
        (try? String(contentsOfFile: state + "/frames/latest.txt", encoding: .utf8)) ?? ""
    }

    private func statusJSON(_ config: String) async throws -> [String: Any] {
        let (status, output) = try await StationProcess.run(
            ["update", "status", "--json", "--config", config], logPath: folder.path + "/status.log")
        try #require(status == 0, "\(output)")
        return try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test("should mark a slot good after running, install over SSH, restart at idle, and confirm the new slot")
    func installsAndConfirms() async throws {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let config = try config(rauc)
        let first = try start(config, "first")
        let good = await StationProcess.waitUntil {
            first.output.contains("update: slot A (0.5.0) marked good")
        }
        #expect(good, "\(first.output)")
        #expect(try await statusJSON(config)["confirmed"] as? Bool == true)

        let bundle = try rauc.bundle("snapstation-2.0.0.raucb", version: "2.0.0")
        // Over SSH as root, beside a station whose state folder is its own user's (nobody's, here).
        let root = geteuid() == 0
        if root { chown(state, 65534, 65534) } else { print("not root: the backup's owner is not checked") }
        let (installed, said) = try await install(bundle, config)
        #expect(installed == 0, "\(said)")
        #expect(said.contains(" 20% Checking bundle") && said.contains("installed 2.0.0 into slot B"))
        // A backup first, kept on the data partition, and left to the station's user.
        let kept = try FileManager.default.contentsOfDirectory(atPath: state + "/backup").filter {
            $0.hasPrefix("before-update-") && $0.hasSuffix(".tar")
        }
        #expect(
            kept.count == 1 && said.contains("a backup before the install: \(state)/backup/before-update-"), "\(said)")
        if root, let name = kept.first {
            for path in [state + "/backup", state + "/backup/" + name] {
                var made = stat()
                #expect(stat(path, &made) == 0 && made.st_uid == 65534, "\(path) is the station's user's")
            }
        }
        // The running station sees it within seconds and, on its idle ready screen, asks for the restart.
        let asked = await StationProcess.waitUntil { FileManager.default.fileExists(atPath: restartFile) }
        #expect(asked, "\(first.output)")
        #expect((try? String(contentsOfFile: restartFile, encoding: .utf8)) == "2.0.0\n")
        #expect(caption().contains("update: restarting into 2.0.0"), "the last frame says so: \(caption())")
        #expect(await first.stop() == 0)

        // The reboot: GRUB tries B; the station runs 2.0.0 and marks it good only after running.
        #expect(try rauc.boot() == "B")
        try FileManager.default.removeItem(atPath: restartFile)
        // Asked before the station starts: asked after, a loaded machine may take longer than the five
        // seconds of trial to run `update status`, and find it confirmed already.
        #expect(try await statusJSON(config)["confirmed"] as? Bool == false, "on trial until it has run")
        let second = try start(config, "second")
        let running = await StationProcess.waitUntil {
            second.output.contains("updates: running 2.0.0 on slot B")
        }
        #expect(running, "\(second.output)")
        let confirmed = await StationProcess.waitUntil {
            second.output.contains("update: updated to 2.0.0 (from 0.5.0)")
        }
        #expect(confirmed, "\(second.output)")
        #expect(await second.stop() == 0)
        let status = try await statusJSON(config)
        #expect(status["confirmed"] as? Bool == true && status["outcome"] as? String == "updated to 2.0.0 (from 0.5.0)")
        #expect(!FileManager.default.fileExists(atPath: restartFile), "no restart asked for without an update")
    }

    @Test("should come back on the old slot when the new one never got marked good, and say so")
    func rollsBack() async throws {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let config = try config(rauc)
        let first = try await startedGood(config)
        let bundle = try rauc.bundle("snapstation-2.0.0.raucb", version: "2.0.0")
        let (installed, said) = try await install(bundle, config)
        #expect(installed == 0, "\(said)")
        #expect(await StationProcess.waitUntil { FileManager.default.fileExists(atPath: restartFile) })
        #expect(await first.stop() == 0)
        // B is tried, and its station dies before it has run long enough (here: killed at once).
        #expect(try rauc.boot() == "B")
        let tried = try start(config, "tried")
        _ = await tried.waitFor("updates: running 2.0.0")
        #expect(await tried.stop(SIGKILL) != 0)
        // The next boot passes B over: A again, which says what happened.
        #expect(try rauc.boot() == "A")
        let back = try start(config, "back")
        let told = await StationProcess.waitUntil {
            self.caption().contains("update: 2.0.0 did not start, running 0.5.0")
        }
        #expect(told, "the display: \(caption())")
        #expect(back.output.contains("the update to 2.0.0 did not start — running 0.5.0 again"), "the log")
        _ = await back.waitFor("(0.5.0) marked good")
        #expect(await back.stop() == 0)
        let status = try await statusJSON(config)
        #expect(status["outcome"] as? String == "the update to 2.0.0 did not start — running 0.5.0 again")
        #expect(status["pending"] == nil, "B is no update waiting")
    }

    @Test("should refuse an unsigned bundle over SSH with RAUC's words and a failure exit, writing nothing")
    func refusesUnsigned() async throws {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let config = try config(rauc)
        let first = try await startedGood(config)
        let bundle = try rauc.bundle("unsigned.raucb", version: "2.0.0", signed: false)
        let (status, said) = try await install(bundle, config)
        #expect(await first.stop() == 0)
        #expect(status == 1 && said.contains("not installed") && said.contains("signature verification failed"))
        #expect(try rauc.grubenv()["ORDER"] as? String == "A B")
    }

    @Test("should refuse an older bundle over SSH naming both versions, and install it with --allow-downgrade")
    func downgradesOnlyWhenAsked() async throws {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let config = try config(rauc)
        let first = try await startedGood(config)
        let bundle = try rauc.bundle("snapstation-0.4.0.raucb", version: "0.4.0")
        let (refused, said) = try await install(bundle, config, log: "refused")
        #expect(refused == 1, "\(said)")
        #expect(said.contains("not installed: this bundle holds 0.4.0, older than the 0.5.0 that runs"), "\(said)")
        #expect(said.contains("snapstation update install --allow-downgrade \(bundle)"), "what to run instead")
        #expect(try rauc.installsAsked().isEmpty && rauc.grubenv()["ORDER"] as? String == "A B", "slot B untouched")
        let (installed, done) = try await install(bundle, config, "--allow-downgrade", log: "downgrade")
        #expect(installed == 0, "\(done)")
        #expect(try done.contains("installed 0.4.0 into slot B") && rauc.installsAsked() == [bundle])
        let asked = await StationProcess.waitUntil { FileManager.default.fileExists(atPath: restartFile) }
        #expect(asked, "the running station restarts into it as into any update: \(first.output)")
        #expect(await first.stop() == 0)
    }
}
