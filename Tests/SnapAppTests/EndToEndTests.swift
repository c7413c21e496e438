import Foundation
import SnapCore
import SnapImaging
import SnapStore
import SnapTestSupport
import Testing

/// The whole station, the real binary, on simulated devices: what a person sees in the PNG frames.
@Suite("End to end on simulated devices", .serialized, .startsProcesses)
struct EndToEndTests {
    let folder = TemporaryDirectory("e2e")

    private func writeConfig(mode: String = "group") throws -> String {
        try StationFixture.writeConfig(
            in: folder.path,
            ["station": ["default_mode = \"\(mode)\""], "group": ["name = \"Family\"", "review_seconds = 1"]])
    }

    private var screens: [String] { StationFixture.screens(in: folder.path + "/state/frames") }

    private func station(script: String, config: String, log: String) throws -> StationProcess {
        try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state", "--no-stdin", "--script", script],
            logPath: folder.path + "/" + log)
    }

    @Test(
        "should walk a press through countdown, capture, review, upload and sent to the lock screen, and stay locked after a restart"
    )
    func groupFlow() async throws {
        let config = try writeConfig()
        let first = try station(script: "1s press", config: config, log: "first.log")
        let locked = await StationProcess.waitUntil { screens.contains("group-lock") }
        #expect(await first.stop() == 0, "SIGTERM is a clean exit")
        #expect(locked, "no lock screen; screens were \(screens)\n\(first.output)")
        let expected = [
            "ready", "countdown", "capturing", "processing", "group-review", "uploading", "sent", "group-lock",
        ]
        #expect(screens.filter(expected.contains) == expected)

        let log = first.output
        let flashOn = try #require(log.range(of: "flash LED on"))
        let captured = try #require(log.range(of: "captured "))
        let flashOff = try #require(log.range(of: "flash LED off"))
        #expect(flashOn.lowerBound < captured.lowerBound && captured.lowerBound < flashOff.lowerBound)

        let day = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let outbox = folder.path + "/state/outbox/Family/SnapStation/\(day)"
        let shared = try FileManager.default.contentsOfDirectory(atPath: outbox).sorted()
        #expect(shared.count == 2 && shared[0].hasSuffix(".jpg") && shared[1].hasSuffix(".json"))
        let jpeg = try #require(FileManager.default.contents(atPath: outbox + "/" + shared[0]))
        #expect(try JPEG.size(of: [UInt8](jpeg)) == (640, 480))

        let store = try StationStore(directory: folder.path + "/state")
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.snapshot(groups: ["Family"], day: day).groupSends == ["Family": [day]])
        #expect(try store.pendingJobs().isEmpty)

        // A restart the same day: the lock comes back from the store, and a press sends nothing.
        // The mode button after the presses: the loop handles events in order, so once its answer shows
        // (the week's screen, after the last group), both presses were answered.
        let second = try station(script: "1s press, 1s press, 1s mode", config: config, log: "second.log")
        let answered = await second.waitFor("screen: week")
        #expect(answered, "\(second.output)")
        #expect(await second.stop() == 0)
        #expect(second.output.contains("screen: group-lock"))
        #expect(!second.output.contains("screen: countdown"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).count == 2)
    }

    @Test("should show 'AI service not configured' in meal mode without a key")
    func mealWithoutKey() async throws {
        let config = try writeConfig(mode: "meal")
        let station = try station(script: "1s press", config: config, log: "meal.log")
        let shown = await StationProcess.waitUntil { screens.contains("error-ai-not-configured") }
        await station.stop()
        #expect(shown, "screens were \(screens)\n\(station.output)")
        #expect(!station.output.contains("captured "), "no photo is taken that cannot be analysed")
    }
}

@Suite("The snapstation command", .startsProcesses)
struct CommandTests {
    let folder = TemporaryDirectory("cli")

    @Test("should exit 0 on a valid config and print OK")
    func validConfig() async throws {
        let path = folder.path + "/ok.toml"
        try "[station]\nname = \"Kitchen\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try await StationProcess.run(["check-config", path], logPath: folder.path + "/ok.log")
        #expect(status == 0)
        #expect(output.contains("OK"))
    }

    @Test("should answer --version with the version alone, as command-line tools do")
    func version() async throws {
        let (status, output) = try await StationProcess.run(["--version"], logPath: folder.path + "/version.log")
        #expect(status == 0)
        #expect(output == StationVersion.current + "\n")
    }

    @Test("should say nothing on standard output it did not mean to: no Chipmunk banner when a jar is made")
    func quietJar() async throws {
        let (status, output) = try await StationProcess.run(
            ["screens", "--out", folder.path + "/screens", "--size", "480x320"], logPath: folder.path + "/screens.log")
        #expect(status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/screens/28b-jar-few.png"), "a jar was drawn")
        #expect(output.split(separator: "\n").count == 1 && output.hasPrefix("wrote "), "\(output)")
    }

    @Test("should exit non-zero with one FILE:LINE: key line per problem, and refuse to run the same file")
    func invalidConfig() async throws {
        let path = folder.path + "/bad.toml"
        try "[processing]\nquality = 0\n[group]\nnmae = \"x\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try await StationProcess.run(["check-config", path], logPath: folder.path + "/bad.log")
        #expect(status == 1)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\(path):2: processing.quality: 0 is out of range (an integer from 1 to 100)",
                "\(path):4: group.nmae: unknown key; did you mean \"group.name\"? (a key listed in docs/snapstation.example.toml)",
            ])
        let run = try await StationProcess.run(
            ["run", "--config", path, "--state", folder.path + "/state", "--no-stdin"],
            logPath: folder.path + "/run.log")
        #expect(run.status != 0)
        #expect(run.output.contains("\(path):2: processing.quality"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state"), "nothing started")
    }

    @Test("should refuse a malformed --script with the words gpio.script gets, instead of running without presses")
    func badScript() async throws {
        for (script, problem) in [
            ("2s press 40s press", "\"2s press 40s press\" is not \"DELAY GESTURE\""),
            ("2s presss", "\"presss\" is not press, hold, mode or pair"),
        ] {
            let run = try await StationProcess.run(
                ["run", "--simulate", "--state", folder.path + "/s", "--no-stdin", "--script", script],
                logPath: folder.path + "/script.log")
            #expect(run.status == 2)
            #expect(run.output.contains("--script: \(problem) (steps such as"), "\(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/s"), "nothing started")
    }

    @Test("should draw every screen with sample data")
    func screens() async throws {
        let (status, _) = try await StationProcess.run(
            ["screens", "--size", "480x800", "--out", folder.path + "/screens"], logPath: folder.path + "/screens.log")
        #expect(status == 0)
        let pngs = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/screens").filter {
            $0.hasSuffix(".png")
        }
        #expect(pngs.count == 58, "every screen of the gallery, and the sample sticker")
        #expect(pngs.contains("29c-reset-confirm.png") && pngs.contains("29d-reset-erasing.png"))
        #expect(pngs.contains("29-menu.png") && pngs.contains("28-ready-two-cameras.png"))
        #expect(pngs.contains("28c-jar-60-week.png") && pngs.contains("28e-jar-household.png"))
        #expect(pngs.contains("04b-countdown-person.png") && pngs.contains("08c-meal-result-person.png"))
    }
}
