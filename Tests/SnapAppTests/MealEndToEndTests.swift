import Foundation
import SnapCore
import SnapImaging
import SnapStore
import SnapTestSupport
import Testing

/// Meal mode through the real binary, against the local OpenAI-compatible server.
@Suite("End to end: meal mode with an AI service", .serialized, .startsProcesses)
struct MealEndToEndTests {
    let folder = TemporaryDirectory("meal-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func config(baseURL: String? = nil, ai extra: [String] = []) throws -> String {
        try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\""],
                "ai": [
                    "base_url = \"\(baseURL ?? fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "dietary = [\"vegan\"]", "auto_save_seconds = 2",
                ] + extra,
            ])
    }

    /// A noise photo of that size written as meal.jpg in the folder, for `analyze`; its path.
    private func mealPhoto(width: Int, height: Int) throws -> String {
        let photo = folder.path + "/meal.jpg"
        try Data(JPEG.encode(TestImages.noise(width: width, height: height), quality: 85)).write(
            to: URL(fileURLWithPath: photo))
        return photo
    }

    private var screens: [String] { StationFixture.screens(in: folder.path + "/state/frames") }

    @Test("should analyse, show the result, save the meal by itself, and count it")
    func analyseAndSave() async throws {
        let station = try StationProcess(
            ["run", "--config", config(), "--state", folder.path + "/state", "--no-stdin", "--script", "1s press"],
            logPath: folder.path + "/station.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let saved = await StationProcess.waitUntil {
            screens.last == "ready" && screens.contains("meal-result")
        }
        #expect(await station.stop() == 0)
        #expect(saved, "screens: \(screens)\n\(station.output)")
        #expect(
            screens.filter { ["countdown", "capturing", "processing", "analysing", "meal-result"].contains($0) }
                == ["countdown", "capturing", "processing", "analysing", "meal-result"])
        #expect(!station.output.contains("test-key"), "the key never reaches the log")
        let store = try StationStore(directory: folder.path + "/state")
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let meals = try store.meals(on: today)
        #expect(meals.map(\.analysis.title) == ["Spaghetti with tomato sauce"])
        #expect(try store.snapshot(groups: [], day: today).aiUses == [today: 1])
    }

    @Test("should drop the saved meal's sticker into the jar, stop redrawing once it settles, and show its details")
    func jar() async throws {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\""],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "auto_save_seconds = 30",
                ],
                "countdown": ["seconds = 1"],
                "display": ["idle_seconds = 0", "preview_png_fps = 20"],
            ])
        let log = folder.path + "/station.log"
        let station = try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state"], logPath: log,
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"], typing: true)
        let follower = LogFollower(path: log)
        let frames = folder.path + "/state/frames"
        #expect(await follower.waitFor("screen: ready"))
        let caption = { (try? String(contentsOfFile: frames + "/latest.txt", encoding: .utf8)) ?? "" }
        let empty = await StationProcess.waitUntil { caption().contains("jar 0") }
        #expect(empty, "an empty jar at start: \(caption())")
        station.type("press")
        #expect(await follower.waitFor("screen: meal-result"), "\(station.output)")
        station.type("press")  // save
        let dropped = await StationProcess.waitUntil { caption().contains("jar 1") }
        #expect(dropped, "the jar after saving: \(caption())")
        // The sticker falls: frames follow it; once it sleeps, none come.
        let readyFrames = {
            ((try? FileManager.default.contentsOfDirectory(atPath: frames)) ?? []).filter { $0.hasSuffix("-ready.png") }
                .count
        }
        var settled = false
        for _ in 0..<10 where !settled {
            let before = readyFrames()
            try await Task.sleep(for: .milliseconds(1500))  // a task's sleep: the pool's threads stay free
            settled = readyFrames() == before
        }
        #expect(settled, "the jar kept redrawing")
        #expect(readyFrames() >= 4, "the fall was drawn: \(readyFrames()) ready frames")
        let still = readyFrames()
        try await Task.sleep(for: .seconds(2))
        #expect(readyFrames() == still, "no redraws while every sticker sleeps")
        station.type("mode")
        let details = await StationProcess.waitUntil { caption().contains("showing Spaghetti") }
        #expect(details, "the mode button shows the sticker's details: \(caption())")
        #expect(await station.stop() == 0)
        let store = try StationStore(directory: folder.path + "/state")
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let sticker = try #require(try store.meals(on: today).first?.photo.stickerPath)
        #expect(FileManager.default.fileExists(atPath: sticker), "every meal keeps a sticker")
    }

    @Test("should show the AI failure with 'press to retry', then succeed on the retry")
    func failureThenRetry() async throws {
        try await fake.queue("openai", ["401"])
        let station = try StationProcess(
            [
                "run", "--config", config(), "--state", folder.path + "/state", "--no-stdin", "--script",
                "1s press, 8s press",
            ],
            logPath: folder.path + "/station.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let retried = await StationProcess.waitUntil { screens.contains("meal-result") }
        await station.stop()
        #expect(retried, "screens: \(screens)\n\(station.output)")
        #expect(screens.contains("error-ai-failed"))
        #expect(station.output.contains("rejected the API key"))
    }

    @Test("should keep a meal shot while the service is down, and show its answer for review when it is back")
    func offlineThenOnline() async throws {
        let port = FakeServices.freePort()
        let station = try StationProcess(
            [
                "run", "--config", config(baseURL: "http://127.0.0.1:\(port)"), "--state", folder.path + "/state",
                "--no-stdin", "--script", "1s press",
            ],
            logPath: folder.path + "/offline.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let queued = await StationProcess.waitUntil { screens.contains("error-analysis-queued") }
        let service = try await FakeServices(port: port)
        let answered = await station.waitFor("waits for review")
        // The answer is shown on the result sheet (never logged unseen), which saves by itself after 2 s.
        let reviewed = await StationProcess.waitUntil {
            screens.last == "ready" && screens.filter { $0 == "meal-result" }.count == 1
        }
        #expect(await station.stop() == 0)
        #expect(queued, "screens: \(screens)\n\(station.output)")
        #expect(answered && reviewed, "screens: \(screens)\n\(station.output)")
        _ = service
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let store = try StationStore(directory: folder.path + "/state")
        #expect(try store.meals(on: today).map(\.analysis.title) == ["Spaghetti with tomato sauce"])
        #expect(try store.snapshot(groups: [], day: today).aiUses == [today: 1])
    }

    @Test(
        "should not keep the person waiting past ai.wait_seconds: the meal is queued, shown when answered, counted once"
    )
    func slowService() async throws {
        try await fake.queue("openai", ["timeout"])  // the first request hangs 30 s; the next one answers
        let station = try StationProcess(
            [
                "run", "--config", config(ai: ["wait_seconds = 5"]), "--state", folder.path + "/state", "--no-stdin",
                "--script", "1s press",
            ],
            logPath: folder.path + "/slow.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let queued = await StationProcess.waitUntil { screens.contains("error-analysis-queued") }
        let reviewed = await StationProcess.waitUntil {
            screens.last == "ready" && screens.filter { $0 == "meal-result" }.count == 1
        }
        #expect(await station.stop() == 0)
        #expect(queued && reviewed, "screens: \(screens)\n\(station.output)")
        let log = station.output
        if let analysing = log.range(of: "screen: analysing"),
            let queuedAt = log.range(of: "screen: error-analysis-queued")
        {
            #expect(analysing.upperBound < queuedAt.lowerBound)
        }
        #expect(log.contains("The AI service did not answer in time: "), "the log says why it was queued")
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let store = try StationStore(directory: folder.path + "/state")
        #expect(try store.meals(on: today).map(\.analysis.title) == ["Spaghetti with tomato sauce"])
        #expect(
            try store.aiUses(on: today) == 1, "the answer, once; the request cut at the person's limit is not counted")
    }

    @Test("should analyse a meal whose request a kill cut off, after the restart, counted once, shown for review")
    func killWhileAnalysing() async throws {
        try await fake.queue("openai", ["timeout"])  // the request hangs: the station is killed on "analysing"
        let first = try StationProcess(
            ["run", "--config", config(), "--state", folder.path + "/state", "--no-stdin", "--script", "1s press"],
            logPath: folder.path + "/first.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let analysing = await first.waitFor("screen: analysing")
        // Killed once the request reached the service, which holds it unanswered.
        let reached = await eventually {
            ((try? await fake.requests()) ?? []).contains { $0["path"] as? String == "/v1/chat/completions" }
        }
        await first.stop(SIGKILL)
        #expect(reached, "the request reached the service before the kill")
        #expect(analysing, "\(first.output)")
        let second = try StationProcess(
            ["run", "--config", config(), "--state", folder.path + "/state", "--no-stdin"],
            logPath: folder.path + "/second.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let reviewed = await StationProcess.waitUntil {
            let log = second.output
            guard let sheet = log.range(of: "screen: meal-result") else { return false }
            return log[sheet.upperBound...].contains("screen: ready")  // saved by itself after 2 s
        }
        #expect(await second.stop() == 0)
        #expect(reviewed, "\(second.output)")
        #expect(second.output.contains("cut off by the last stop go to the queue"))
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let store = try StationStore(directory: folder.path + "/state")
        #expect(try store.meals(on: today).map(\.analysis.title) == ["Spaghetti with tomato sauce"])
        #expect(try store.aiUses(on: today) == 1, "the answered request, once; the cut one was never answered")
    }

    @Test("should go through the proxy the environment names, and straight to hosts in no_proxy")
    func proxyFromEnvironment() async throws {
        // In the child's environment, never this process's: `setenv` in a test races every `getenv` of the
        // tests beside it (libcurl, the time zone, Foundation), and once took the whole suite down in CI.
        let photo = try mealPhoto(width: 640, height: 480)
        let key = ["SNAPSTATION_TEST_AI_KEY": "test-key"]
        // An address of this machine where nothing listens (a key goes over plain http to this machine only):
        // only a proxy answers it. The stand-in answers the absolute-form request a client sends to a forward
        // proxy, so it stands in for one.
        let proxied = try await StationProcess.run(
            ["analyze", photo, "--config", config(baseURL: "http://localhost:9")],
            logPath: folder.path + "/proxied.log",
            environment: key.merging(["http_proxy": fake.baseURL, "no_proxy": ""]) { $1 })
        #expect(proxied.status == 0, "through the proxy: \(proxied.output)")
        // A proxy that answers nothing: the station's own host is reached only where no_proxy names it.
        let dead = ["http_proxy": "http://127.0.0.1:1"]
        let bypassed = try await StationProcess.run(
            ["analyze", photo, "--config", config()], logPath: folder.path + "/bypassed.log",
            environment: key.merging(dead) { $1 }.merging(["no_proxy": "127.0.0.1,localhost"]) { $1 })
        #expect(bypassed.status == 0, "straight to a host in no_proxy: \(bypassed.output)")
        let blocked = try await StationProcess.run(
            ["analyze", photo, "--config", config()], logPath: folder.path + "/blocked.log",
            environment: key.merging(dead) { $1 }.merging(["no_proxy": ""]) { $1 })
        #expect(blocked.status == 1, "the dead proxy is used where no_proxy does not name the host")
    }

    @Test("should print the analysis as JSON with the dietary clashes, or exit 1 with the reason")
    func analyzeCommand() async throws {
        let photo = try mealPhoto(width: 1024, height: 768)
        let environment = ["SNAPSTATION_TEST_AI_KEY": "test-key"]
        let ok = try await StationProcess.run(
            ["analyze", photo, "--config", config()], logPath: folder.path + "/a.log", environment: environment)
        #expect(ok.status == 0, "\(ok.output)")
        let json = try JSONSerialization.jsonObject(with: Data(ok.output.utf8)) as? [String: Any]
        #expect(json?["calories"] as? Int == 650)
        let items = json?["items"] as? [[String: Any]]
        #expect(items?.first?["clashes"] as? [String] == [], "spaghetti is vegan")
        #expect(items?.last?["clashes"] as? [String] == ["vegan"], "parmesan is not")

        let text = folder.path + "/notes.jpg"
        try "not a photo".write(toFile: text, atomically: true, encoding: .utf8)
        let dry = try await StationProcess.run(
            ["analyze", text, "--dry-run", "--config", config()], logPath: folder.path + "/d.log")
        #expect(dry.status == 1)
        #expect(dry.output.contains("notes.jpg"), "the error names the file: \(dry.output)")

        try await fake.queue("openai", ["refusal"])
        let refused = try await StationProcess.run(
            ["analyze", photo, "--config", config()], logPath: folder.path + "/b.log", environment: environment)
        #expect(refused.status == 1)
        #expect(refused.output.contains("The AI declined"))
        // OpenAI's API needs a key: without one there is nothing to ask.
        let noKey = try await StationProcess.run(
            ["analyze", photo, "--config", config(baseURL: "https://api.openai.com")], logPath: folder.path + "/c.log")
        #expect(noKey.status == 2)
        #expect(noKey.output.contains("AI service not configured"))
        // Another server may need none (Ollama): it is asked without one, and this one (OpenAI's stand-in) refuses.
        let keyless = try await StationProcess.run(
            ["analyze", photo, "--config", config()], logPath: folder.path + "/e.log")
        #expect(keyless.status == 1 && keyless.output.contains("rejected the API key"), "\(keyless.output)")
        #expect(try await fake.requests().last?["auth_ok"] as? Bool == false)
    }
}
