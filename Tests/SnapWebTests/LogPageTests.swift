import Foundation
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapTestSupport
import Testing

@testable import SnapStore
@testable import SnapWeb

@Suite("The owner's page: a meal logged without the camera, from a phone's photo, a sentence or the numbers")
struct LogPageTests {
    private func station(_ answer: Result<MealAnalysis, AIFailure> = .success(TestKitchen.meal)) throws -> (
        WebTestStation, TestKitchen, lena: PersonID
    ) {
        let kitchen = TestKitchen(answer: answer)
        let station = try WebTestStation(kitchen: kitchen)
        let lena = try station.store.addPerson(name: "Lena", colour: .teal, goals: nil, aiShare: nil).get()
        return (station, kitchen, lena)
    }

    /// A portrait shot stored on its side with EXIF orientation 6 and a GPS position, as a phone writes it.
    static func phonePhoto() throws -> [UInt8] {
        let stored = TestImages.marked(width: 600, height: 800).oriented(Orientation(quarterTurns: 3))
        return EXIFWriter.inserting(orientation: 6, into: try JPEG.encode(stored, quality: 92))
    }

    private func send(_ body: [UInt8], to base: String, person: PersonID, _ browser: WebTestStation.Browser)
        async throws -> HTTPResponse
    {
        try await HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60)).send(
            HTTPRequest(
                method: "POST", url: base + "/log/photo?person=\(person.rawValue)",
                headers: [
                    ("Cookie", browser.cookie), ("X-CSRF-Token", browser.csrf),
                    ("Content-Type", "application/octet-stream"),
                ], body: body))
    }

    /// The review form's fields for `analysis` as the page drew it, saved.
    private func saving(_ analysis: MealAnalysis, _ browser: WebTestStation.Browser) -> [(String, String)] {
        mealForm(analysis, version: nil, csrf: browser.csrf, ["decision": "save"])
    }

    private func answered(_ station: WebTestStation, _ browser: WebTestStation.Browser) async -> String {
        var page = ""
        _ = await eventually {
            page = await station.get("/log/review", cookie: browser.cookie).text
            return page.contains("action=\"/log/review\"")
        }
        return page
    }

    @Test("should run a phone's photo through the pipeline for the person chosen, ask the AI, and save it reviewed")
    func photoFromThePhone() async throws {
        let (station, kitchen, lena) = try station()
        let browser = try await station.pair()
        let page = await station.get("/log?person=\(lena.rawValue)", cookie: browser.cookie).text
        #expect(
            page.contains("data-upload=\"/log/photo?person=\(lena.rawValue)\"") && page.contains("accept=\"image/*\""))
        try await WebServerTests().serving(station) { base in
            let sent = try await send(try Self.phonePhoto(), to: base, person: lena, browser)
            #expect(sent.status == 303 && sent.header("location") == "/log/review", "\(sent.status)")
        }
        let review = await answered(station, browser)
        #expect(review.contains("For Lena") && review.contains("value=\"Rye bread with butter\""), "\(review)")
        #expect(kitchen.asked.withLock { $0 } == ["photo 300x400"], "the AI saw the photo upright and shrunk")
        let (id, files) = try #require(try station.store.latestPhoto())
        let kept = try #require(FileBytes.readIfPresent(files.photo))
        #expect(try JPEG.size(of: kept) == (300, 400))
        #expect(!EXIFWriter.markers(of: kept).contains(0xE1), "no EXIF, no GPS")
        #expect(try JPEG.decode(kept).rgb(x: 5, y: 5).red > 200, "the mark is top-left again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: station.folder.path + "/incoming").isEmpty)

        let saved = await station.post("/log/review", saving(TestKitchen.meal, browser), cookie: browser.cookie)
        #expect(saved.status == 303 && saved.header("location") == "/?saved=logged&person=\(lena.rawValue)")
        let meals = try station.store.meals(on: station.today)
        #expect(meals.map(\.analysis.title) == ["Rye bread with butter"] && meals.map(\.person) == [lena])
        #expect(meals.first?.photo.id == id, "the meal keeps the photo sent")
        #expect(try station.store.aiUses(on: station.today) == 1, "counted as a capture's analysis is")
        #expect(station.link.events.contains(.answeredForThePage(day: station.today, person: lena)), "Lena's")
        #expect(station.link.events.contains { if case .mealsChanged = $0 { true } else { false } }, "the jar hears")
        let again = await station.post("/log/review", saving(TestKitchen.meal, browser), cookie: browser.cookie)
        #expect(again.header("location") == "/log", "a second Save saves nothing twice")
        #expect(try station.store.meals(on: station.today).count == 1)
    }

    @Test(
        "should refuse, each with its reason, a 60 MB file, a PNG, a HEIC, a bomb, a cut JPEG and noise, keeping nothing"
    )
    func hostileUploads() async throws {
        let (station, kitchen, lena) = try station()
        let browser = try await station.pair()
        let good = try JPEG.encode(TestImages.marked(width: 640, height: 480), quality: 90)
        var bomb = good
        // The frame header's height and width (SOF0: FF C0, length, precision, then the two sizes).
        let sof = try #require((0..<bomb.count - 1).first { bomb[$0] == 0xFF && bomb[$0 + 1] == 0xC0 })
        bomb.replaceSubrange(sof + 5..<sof + 9, with: [0x75, 0x30, 0x75, 0x30])  // 30000 × 30000
        var heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        heic += [UInt8](repeating: 0, count: 64)
        let png = try PNG.encode(withAlpha: TestImages.marked(width: 64, height: 48))
        let huge = [UInt8](repeating: 0xFF, count: 60 << 20)
        let cases: [(String, [UInt8], Int, String)] = [
            ("60 MB", huge, 413, "This file is 60 MB; a photo may be up to 32 MB."),
            ("PNG", png, 415, "This is a PNG picture"),
            ("HEIC", heic, 415, "This is a HEIC photo"),
            ("bomb", bomb, 415, "This photo has 900 megapixels; the station reads photos of up to 64."),
            ("cut", Array(good.prefix(good.count / 2)), 415, "This photo is incomplete"),
            ("noise", Array("hello, this is not a photo".utf8), 415, "This file is not a photo the station can read"),
        ]
        try await WebServerTests().serving(station) { base in
            for (name, body, status, message) in cases {
                let reply = try await send(body, to: base, person: lena, browser)
                let said = String(decoding: reply.body, as: UTF8.self)
                #expect(reply.status == status && said.contains(message), "\(name): \(reply.status) \(said)")
            }
            let today = try await HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(30)).send(
                HTTPRequest(url: base + "/", headers: [("Cookie", browser.cookie)]))
            #expect(today.status == 200, "the page still serves")
        }
        #expect(try station.store.latestPhoto() == nil, "no photo kept")
        #expect(kitchen.asked.withLock { $0 }.isEmpty, "the AI was asked nothing")
        #expect(try station.store.aiUses(on: station.today) == 0)
        let incoming = (try? FileManager.default.contentsOfDirectory(atPath: station.folder.path + "/incoming")) ?? []
        #expect(incoming.isEmpty, "nothing left of what was sent: \(incoming)")
        #expect(await station.get("/log/review", cookie: browser.cookie).header("location") == "/log")
    }

    @Test("should keep no file of a photo refused because another meal came first while it arrived")
    func refusedLeavesNoFile() async throws {
        let (station, _, lena) = try station()
        let browser = try await station.pair()
        let sentence = "two slices of rye bread with butter"
        _ = await station.post(
            "/log/describe", [("csrf", browser.csrf), ("person", "\(lena.rawValue)"), ("sentence", sentence)],
            cookie: browser.cookie)
        #expect(await answered(station, browser).contains(sentence), "a meal waits for review")
        // A photo whose head was let through before that meal came: it arrives now, and is refused.
        let arrived = station.folder.path + "/incoming/phone-late.jpg"
        try FileManager.default.createDirectory(
            atPath: station.folder.path + "/incoming", withIntermediateDirectories: true)
        try Data(try Self.phonePhoto()).write(to: URL(fileURLWithPath: arrived))
        let request = WebRequest(
            method: .post, target: "/log/photo?person=\(lena.rawValue)",
            headers: ["Host": "127.0.0.1:8080", "Cookie": browser.cookie])
        let reply = await station.app.received(.photo, request, arrived, problem: nil)
        #expect(reply.status == 409 && reply.text.contains("Another meal waits for review"), "\(reply.status)")
        #expect(try station.store.latestPhoto() == nil, "no photo kept")
        // One whose browser was forgotten while it arrived: whose it would be is no one's to say.
        try Data(try Self.phonePhoto()).write(to: URL(fileURLWithPath: arrived))
        let forgotten = WebRequest(
            method: .post, target: "/log/photo?person=\(lena.rawValue)", headers: ["Host": "127.0.0.1:8080"])
        #expect(await station.app.received(.photo, forgotten, arrived, problem: nil).status == 401)
        let left =
            StationStore.files(under: station.folder.path + "/photos")
            + StationStore.files(
                under: station.folder.path + "/incoming")
        #expect(left.isEmpty, "nothing left of either: \(left)")
    }

    @Test("should log a described meal after review and a quick add at once, each on its person's own day")
    func describedAndQuick() async throws {
        let (station, kitchen, lena) = try station()
        let browser = try await station.pair()
        let sentence = "two slices of rye bread with butter"
        let asked = await station.post(
            "/log/describe", [("csrf", browser.csrf), ("person", "\(lena.rawValue)"), ("sentence", sentence)],
            cookie: browser.cookie)
        #expect(asked.status == 303 && asked.header("location") == "/log/review")
        let review = await answered(station, browser)
        #expect(review.contains("<blockquote>\(sentence)</blockquote>"), "\(review)")
        #expect(kitchen.asked.withLock { $0 } == ["sentence \(sentence)"])
        let busy = await station.post(
            "/log/describe", [("csrf", browser.csrf), ("sentence", "an apple")], cookie: browser.cookie)
        #expect(busy.status == 409 && busy.text.contains("Another meal waits for review"))
        let saved = await station.post("/log/review", saving(TestKitchen.meal, browser), cookie: browser.cookie)
        #expect(saved.status == 303)

        let quick = await station.post(
            "/log/quick",
            [
                ("csrf", browser.csrf), ("person", "1"), ("quick", "1"), ("items", "0"), ("own_totals", "1"),
                ("title", "Apple"), ("total_kcal", "95"), ("total_protein", "0"), ("total_carbs", "25"),
                ("total_fats", "0"),
            ], cookie: browser.cookie)
        #expect(quick.status == 303 && quick.header("location") == "/?saved=logged&person=1")
        let wrong = await station.post(
            "/log/quick",
            [
                ("csrf", browser.csrf), ("quick", "1"), ("items", "0"), ("own_totals", "1"), ("title", "Pear"),
                ("total_kcal", "lots"), ("total_protein", "0"), ("total_carbs", "0"), ("total_fats", "0"),
            ], cookie: browser.cookie)
        #expect(wrong.status == 400 && wrong.text.contains("value=\"Pear\""), "said at the form, what was typed kept")

        let meals = try station.store.meals(on: station.today)
        #expect(meals.map(\.analysis.title).sorted() == ["Apple", "Rye bread with butter"])
        #expect(meals.first { $0.analysis.title == "Apple" }?.person == .first)
        #expect(meals.first { $0.analysis.title == "Apple" }?.analysis.totals.calories == 95)
        #expect(try station.store.aiUses(on: station.today) == 1, "the quick add spent nothing")
        let lenas = await station.get("/?person=\(lena.rawValue)", cookie: browser.cookie).text
        #expect(lenas.contains("<b>Rye bread with butter</b>") && !lenas.contains("<b>Apple</b>"))
        let csv = await station.get("/export/meals.csv?person=1", cookie: browser.cookie).text
        #expect(csv.contains("Apple") && !csv.contains("Rye bread"), "\(csv)")
    }

    @Test("should keep the photo and take the numbers by hand when the AI gives no estimate")
    func noEstimate() async throws {
        let (station, _, lena) = try station(.failure(.refused("I can't help with that.")))
        let browser = try await station.pair()
        try await WebServerTests().serving(station) { base in
            let sent = try await send(try Self.phonePhoto(), to: base, person: lena, browser)
            #expect(sent.status == 303)
        }
        let review = await answered(station, browser)
        #expect(review.contains("No estimate:"), "\(review)")
        let typed = await station.post(
            "/log/review",
            [
                ("csrf", browser.csrf), ("title", "Lunch"), ("items", "0"), ("new_name", ""), ("own_totals", "1"),
                ("total_kcal", "600"), ("total_protein", "20"), ("total_carbs", "70"), ("total_fats", "20"),
                ("decision", "save"),
            ], cookie: browser.cookie)
        #expect(typed.status == 303)
        let meal = try #require(try station.store.meals(on: station.today).first)
        #expect(meal.analysis.title == "Lunch" && meal.analysis.totals.calories == 600 && !meal.photo.photoPath.isEmpty)
    }

    @Test("should keep a person to their share of the day's analyses, say so, and show each person's use")
    func share() async throws {
        let (station, kitchen, lena) = try station()
        var household = try station.store.household()
        var limited = try #require(household.person(lena))
        limited.aiShare = 1
        #expect(try station.store.updatePerson(limited) == nil)
        household = try station.store.household()
        let browser = try await station.pair()
        func describe(_ sentence: String, for person: PersonID) async -> WebReply {
            await station.post(
                "/log/describe", [("csrf", browser.csrf), ("person", "\(person.rawValue)"), ("sentence", sentence)],
                cookie: browser.cookie)
        }
        #expect(await describe("an apple", for: lena).status == 303)
        _ = await answered(station, browser)
        #expect(
            await station.post("/log/review", saving(TestKitchen.meal, browser), cookie: browser.cookie).status == 303)
        let page = await station.get("/log?person=\(lena.rawValue)", cookie: browser.cookie).text
        #expect(
            page.contains("<button type=\"submit\" disabled>No AI analyses left today</button>"),
            "Lena's AI button is off, and says so (not 'uses 1 of the 0 left'): \(page)")
        #expect(page.contains("Lena has used their analysis for today."), "and the page says why")
        let refused = await describe("a pear", for: lena)
        #expect(refused.status == 409 && refused.text.contains("Lena has used their analysis for today."))
        #expect(kitchen.asked.withLock { $0 }.count == 1, "the AI was not asked for Lena again")
        #expect(try station.store.personAIUses(on: station.today) == [lena: 1])
        #expect(await describe("a pear", for: .first).status == 303, "the owner has no share of their own")
        let people = await station.get("/people", cookie: browser.cookie).text
        #expect(people.contains("Today: 1 analysis used"), "\(people)")
    }
}
