import Foundation
import SnapCore
import SnapImaging
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

/// A household of two through the real binary, its page over HTTP and the OpenAI stand-in: a capture at
/// the station given to the second person by the mode button, a phone's photo for the first, a described
/// meal and a quick add; each person's day, export and stickers their own.
@Suite("End to end: a household at one station, with and without the camera", .serialized, .startsProcesses)
struct HouseholdEndToEndTests {
    let folder = TemporaryDirectory("household-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// The page's client: a form or a body sent with the browser's cookie and token, its answer as text.
    private struct Page {
        let base: String
        let owner: PairedBrowser
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))

        func send(_ path: String, body: [UInt8], type: String, method: String = "POST") async throws -> HTTPResponse {
            try await client.send(
                HTTPRequest(
                    method: method, url: base + path,
                    headers: [
                        ("Cookie", owner.cookie), ("X-CSRF-Token", owner.csrf), ("Content-Type", type),
                        ("Host", String(base.dropFirst("http://".count))),
                    ], body: body))
        }

        func post(_ path: String, _ fields: [(String, String)]) async throws -> HTTPResponse {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let body = ([("csrf", owner.csrf)] + fields).map {
                "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }.joined(separator: "&")
            return try await send(path, body: Array(body.utf8), type: "application/x-www-form-urlencoded")
        }

        func get(_ path: String) async throws -> String {
            String(decoding: try await send(path, body: [], type: "text/plain", method: "GET").body, as: UTF8.self)
        }

        /// The review's form once the AI has answered, saved as the page drew it.
        func saveReview() async throws -> HTTPResponse {
            var page = ""
            _ = await eventually {
                page = (try? await get("/log/review")) ?? ""
                return page.contains("action=\"/log/review\"")
            }
            let fields = page.matches(of: /<input[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"[^>]*>/).compactMap {
                match -> (String, String)? in
                let name = String(match.1)
                guard !match.0.contains("type=\"checkbox\""), name != "csrf" else { return nil }
                return (name, String(match.2).replacingOccurrences(of: "&amp;", with: "&"))
            }
            return try await post("/log/review", fields + [("decision", "save")])
        }
    }

    @Test("should give each person their meals: a capture by the mode button, a phone's photo, a sentence, numbers")
    func household() async throws {
        let state = folder.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "phone")
        let lena = try StationStore(directory: state).addPerson(
            name: "Lena", colour: .teal, goals: Macros(calories: 1_800, protein: 90, carbs: 0, fats: 0), aiShare: nil
        )
        .get()
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\""],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "auto_save_seconds = 60",
                ],
                "countdown": ["seconds = 1"],
                "display": ["idle_seconds = 0"],
            ])
        let log = folder.path + "/station.log"
        let station = try StationProcess(
            ["run", "--config", config, "--state", state], logPath: log,
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"], typing: true)
        let follower = LogFollower(path: log)
        let caption = { (try? String(contentsOfFile: state + "/frames/latest.txt", encoding: .utf8)) ?? "" }
        let port = try #require(await station.pagePort(), "\(station.output)")
        let page = Page(base: "http://127.0.0.1:\(port)", owner: owner)

        // At the station: the shot, then the mode button gives it to Lena, and the press saves it.
        #expect(await follower.waitFor("screen: ready"))
        station.type("press")
        #expect(await follower.waitFor("screen: meal-result"), "\(station.output)")
        station.type("mode")
        #expect(await StationProcess.waitUntil { caption().contains("· for Lena") }, "\(caption())")
        station.type("press")
        #expect(await StationProcess.waitUntil { caption().hasPrefix("ready") }, "\(caption())")

        // A phone's photo for the owner: a portrait on its side, EXIF orientation 6 and GPS.
        let sideways = TestImages.marked(width: 600, height: 800).oriented(Orientation(quarterTurns: 3))
        let photo = EXIFWriter.inserting(orientation: 6, into: try JPEG.encode(sideways, quality: 92))
        let sent = try await page.send("/log/photo?person=1", body: photo, type: "image/jpeg")
        #expect(sent.status == 303 && sent.header("location") == "/log/review", "\(sent.status)")
        #expect(try await page.saveReview().status == 303)
        // A described meal for Lena, and the owner's quick add.
        let sentence = "two slices of rye bread with butter and a boiled egg"
        let described = try await page.post("/log/describe", [("person", "\(lena.rawValue)"), ("sentence", sentence)])
        #expect(described.status == 303)
        #expect(try await page.saveReview().status == 303)
        let quick = try await page.post(
            "/log/quick",
            [
                ("person", "1"), ("quick", "1"), ("items", "0"), ("own_totals", "1"), ("title", "Apple"),
                ("total_kcal", "95"), ("total_protein", "0"), ("total_carbs", "25"), ("total_fats", "0"),
            ])
        #expect(quick.status == 303)

        let lenas = try await page.get("/?person=\(lena.rawValue)")
        let owners = try await page.get("/?person=1")
        let csv = try await page.get("/export/meals.csv?person=\(lena.rawValue)")
        let marked = await StationProcess.waitUntil {
            caption().contains("marked") && caption().contains("orange") && caption().contains("teal")
        }
        #expect(await station.stop() == 0)
        #expect(marked, "the jar marks both people's stickers: \(caption())")

        let store = try StationStore(directory: state)
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let meals = try store.meals(on: today)
        let titles = { (person: PersonID) in meals.filter { $0.person == person }.map(\.analysis.title).sorted() }
        #expect(
            titles(lena) == ["Spaghetti with tomato sauce", "Two slices of rye bread with butter and a boiled egg"])
        #expect(titles(.first) == ["Apple", "Spaghetti with tomato sauce"], "\(meals.map(\.person))")
        #expect(try store.aiUses(on: today) == 3, "the capture, the phone's photo and the sentence; quick add none")
        #expect(lenas.contains("<b>Two slices of rye bread") && !lenas.contains("<b>Apple</b>"))
        #expect(lenas.contains("max=\"1800\"") && !owners.contains("max=\"1800\""), "Lena's own goals, hers alone")
        #expect(owners.contains("<b>Apple</b>") && !owners.contains("<b>Two slices"))
        let rows = csv.split(whereSeparator: \.isNewline).dropFirst()
        #expect(rows.count == 2 && !csv.contains("Apple"), "Lena's export: \(csv)")

        // The phone's photo as kept: upright, at its size, no EXIF; the AI asked with the 512 px copy.
        let phone = try #require(meals.first { $0.person == .first && !$0.photo.photoPath.isEmpty })
        let kept = try #require(FileManager.default.contents(atPath: phone.photo.photoPath)).map { $0 }
        #expect(try JPEG.size(of: kept) == (600, 800))
        #expect(!EXIFWriter.markers(of: kept).contains(0xE1), "no EXIF, so no GPS")
        let chats = try await fake.requests().filter { $0["path"] as? String == "/v1/chat/completions" }
        let sizes = chats.map { ($0["image_size"] as? [Int]).map { $0.max() ?? 0 } }
        #expect(sizes == [512, 512, nil], "two photos at 512 px, then the sentence alone: \(sizes)")
    }
}
