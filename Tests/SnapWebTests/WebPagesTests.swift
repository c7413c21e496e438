import Foundation
import SnapCore
import SnapImaging
import SnapStore
import SnapTestSupport
import SnapText
import Testing

@testable import SnapWeb

/// The fields the meal page's form sends for `analysis` as it is, with `changes` over them.
func mealForm(_ analysis: MealAnalysis, version: Int?, csrf: String, _ changes: [String: String] = [:]) -> [(
    String, String
)] {
    var fields: [(String, String)] = [("csrf", csrf), ("title", analysis.title), ("items", "\(analysis.items.count)")]
    if let version { fields.append(("version", "\(version)")) }
    for (index, item) in analysis.items.enumerated() {
        let p = "item\(index)_"
        fields += [
            (p + "name", item.name), (p + "grams", "\(item.grams)"), (p + "kcal", "\(item.macros.calories)"),
            (p + "protein", "\(item.macros.protein)"), (p + "carbs", "\(item.macros.carbs)"),
            (p + "fats", "\(item.macros.fats)"),
        ]
    }
    fields += [
        ("new_name", ""), ("new_grams", ""), ("new_kcal", ""), ("new_protein", ""), ("new_carbs", ""), ("new_fats", ""),
    ]
    fields += [("total_kcal", "0"), ("total_protein", "0"), ("total_carbs", "0"), ("total_fats", "0")]
    fields = fields.map { name, value in (name, changes[name] ?? value) }
    for (name, value) in changes where !fields.contains(where: { $0.0 == name }) { fields.append((name, value)) }
    return fields
}

@Suite("The owner's page: meals, review, shopping, settings, group and status")
struct WebPagesTests {
    @Test("should list today's meals with their thumbnails, times, macros and the day's totals")
    func today() async throws {
        let station = try WebTestStation()
        try station.meal("m1", title: "Porridge")
        try station.meal("m2", title: "Spaghetti")
        try station.meal("old", title: "Soup", day: station.today.adding(days: -1))
        let browser = try await station.pair()
        let page = await station.get("/", cookie: browser.cookie).text
        #expect(page.contains("Porridge") && page.contains("Spaghetti") && !page.contains("Soup"))
        #expect(page.contains("1060 kcal"))
        #expect(page.contains("/photo/m1.thumb.jpg"))
        #expect(page.contains("12:00"))
        let history = await station.get("/history", cookie: browser.cookie).text
        #expect(history.contains(station.today.adding(days: -1).description) && history.contains("1 meal · 530 kcal"))
        #expect(
            await station.get("/day/\(station.today.adding(days: -1))", cookie: browser.cookie).text.contains("Soup"))
        #expect(await station.get("/day/2026-13-40", cookie: browser.cookie).status == 404)
        let photo = await station.get("/photo/m1.jpg", cookie: browser.cookie)
        #expect(photo.status == 200 && photo.header("Content-Type") == "image/jpeg")
        #expect(try JPEG.size(of: photo.body) == (320, 240))
        #expect(
            await station.get("/photo/m1.sticker.png", cookie: browser.cookie).header("Content-Type") == "image/png")
        #expect(await station.get("/photo/nope.jpg", cookie: browser.cookie).status == 404)
        let download = await station.get("/photo/m1.jpg?download=1", cookie: browser.cookie)
        #expect(download.header("Content-Disposition") == "attachment; filename=\"m1.jpg\"")
    }

    @Test("should show a meal with its items, grams, macros and the dietary preferences it breaks")
    func mealDetail() async throws {
        let station = try WebTestStation()
        try station.meal("m1")
        let browser = try await station.pair()
        _ = await station.post(
            "/settings", [("csrf", browser.csrf), ("dietary_shown", "1"), ("dietary", "gluten-free")],
            cookie: browser.cookie)
        let page = await station.get("/meal/m1", cookie: browser.cookie).text
        #expect(page.contains("Tomato sauce") && page.contains("150 g"))
        #expect(page.contains("not gluten-free"))
        #expect(page.contains("A fact."))
        #expect(page.contains("/photo/m1.sticker.png"))
        #expect(await station.get("/meal/nope", cookie: browser.cookie).status == 404)
    }

    @Test("should save an edit: the totals follow the items, the version moves on, the station hears of it")
    func editsMeal() async throws {
        let station = try WebTestStation()
        let meal = try station.meal("m1")
        let browser = try await station.pair()
        let reply = await station.post(
            "/meal/m1",
            mealForm(
                meal.analysis, version: 1, csrf: browser.csrf,
                [
                    "title": "Spaghetti, less sauce", "item1_kcal": "105", "item1_grams": "75", "new_name": "Basil",
                    "new_grams": "2", "new_kcal": "1", "new_protein": "0", "new_carbs": "0", "new_fats": "0",
                ]),
            cookie: browser.cookie)
        #expect(reply.status == 303)
        #expect(reply.header("Location") == "/meal/m1?saved=1")
        let stored = try #require(try station.store.storedMeal(PhotoID("m1")))
        #expect(stored.version == 2)
        #expect(stored.meal.analysis.title == "Spaghetti, less sauce")
        #expect(stored.meal.analysis.items.map(\.name) == ["Spaghetti", "Tomato sauce", "Basil"])
        #expect(stored.meal.analysis.items[1].grams == 75)
        #expect(stored.meal.analysis.totals.calories == 320 + 105 + 1)
        #expect(stored.meal.analysis.items[1].ingredients.count == 2)  // kept while its name is
        #expect(stored.meal.analysis.items[0].contains == [.gluten])
        #expect(!stored.totalsSetByOwner)
        guard case .mealsChanged(_, let meals)? = station.link.events.last else {
            Issue.record("the station was not told: \(station.link.events)")
            return
        }
        #expect(meals.map(\.analysis.totals.calories) == [426])
        #expect(await station.get("/", cookie: browser.cookie).text.contains("426 kcal"))
    }

    @Test("should scale an item's numbers with its grams from the estimate's per-gram values, and keep typed ones")
    func portions() async throws {
        let station = try WebTestStation()
        let meal = try station.meal("m1")  // Spaghetti: 200 g, 320 kcal, P 11, C 64, F 2
        let browser = try await station.pair()
        func save(_ analysis: MealAnalysis, version: Int, _ changes: [String: String]) async throws -> MealAnalysis {
            let reply = await station.post(
                "/meal/m1", mealForm(analysis, version: version, csrf: browser.csrf, changes), cookie: browser.cookie)
            #expect(reply.status == 303)
            return try #require(try station.store.storedMeal(PhotoID("m1"))).meal.analysis
        }
        let smaller = try await save(meal.analysis, version: 1, ["item0_grams": "150"])
        #expect(smaller.items[0].macros == Macros(calories: 240, protein: 8, carbs: 48, fats: 2))
        #expect(smaller.totals == smaller.items.reduce(.zero) { $0 + $1.macros }, "the totals follow")
        // Back and forth: from the estimate each time, so no rounding piles up (11 × 0.75 = 8.25 → 8).
        let odd = try await save(smaller, version: 2, ["item0_grams": "33"])
        let back = try await save(odd, version: 3, ["item0_grams": "200"])
        #expect(back.items[0].macros == meal.analysis.items[0].macros)
        // Numbers typed by the owner are the item's from then on, and a new weight scales from them.
        let typed = try await save(back, version: 4, ["item0_kcal": "400", "item0_protein": "20"])
        #expect(typed.items[0].macros == Macros(calories: 400, protein: 20, carbs: 64, fats: 2))
        let doubled = try await save(typed, version: 5, ["item0_grams": "400"])
        #expect(doubled.items[0].macros == Macros(calories: 800, protein: 40, carbs: 128, fats: 4))
    }

    @Test("should log a meal from history again today: its numbers, its own copy of the files, no AI use")
    func eatAgain() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let old = try station.meal("old", title: "Lentil soup", day: station.today.adding(days: -3))
        #expect(await station.get("/meal/old", cookie: browser.cookie).text.contains("action=\"/meal/old/again\""))
        let reply = await station.post("/meal/old/again", [("csrf", browser.csrf)], cookie: browser.cookie)
        #expect(reply.status == 303 && reply.header("Location") == "/?saved=again")
        let today = try station.store.meals(on: station.today)
        let again = try #require(today.first)
        #expect(today.count == 1 && again.analysis == old.analysis && again.photo.id != old.photo.id)
        #expect(again.photo.photoPath != old.photo.photoPath)
        for path in [again.photo.photoPath, again.photo.thumbnailPath, again.photo.stickerPath ?? ""] {
            #expect(FileManager.default.fileExists(atPath: path), "\(path) is the new meal's own copy")
        }
        #expect(try station.store.aiUses(on: station.today) == 0, "no analysis was used")
        guard case .mealsChanged(let day, let meals)? = station.link.events.last else {
            Issue.record("the station was not told: \(station.link.events)")
            return
        }
        #expect(day == station.today && meals.map(\.photo.id) == [again.photo.id])
        // Deleting the new one leaves the old one whole.
        #expect(
            await station.post(
                "/meal/\(again.photo.id.rawValue)/delete", [("csrf", browser.csrf)], cookie: browser.cookie
            )
            .status == 303)
        #expect(FileManager.default.fileExists(atPath: old.photo.photoPath))
        #expect(await station.get("/?saved=again", cookie: browser.cookie).text.contains("Logged again for today."))
        #expect(await station.post("/meal/gone/again", [("csrf", browser.csrf)], cookie: browser.cookie).status == 404)
        // A meal from last week: retention took its photo, not its sticker, which still drops into the jar.
        let week = try station.meal("week", title: "Porridge", day: station.today.adding(days: -6))
        try FileManager.default.removeItem(atPath: week.photo.photoPath)
        try FileManager.default.removeItem(atPath: week.photo.thumbnailPath)
        #expect(await station.post("/meal/week/again", [("csrf", browser.csrf)], cookie: browser.cookie).status == 303)
        let porridge = try #require(
            try station.store.meals(on: station.today).first { $0.analysis.title == "Porridge" })
        #expect(porridge.photo.photoPath.isEmpty)
        let sticker = try #require(porridge.photo.stickerPath)
        #expect(FileManager.default.fileExists(atPath: sticker) && sticker != week.photo.stickerPath)
    }

    @Test("should take totals typed by hand, and remove an item")
    func totalsByHand() async throws {
        let station = try WebTestStation()
        let meal = try station.meal("m1")
        let browser = try await station.pair()
        let reply = await station.post(
            "/meal/m1",
            mealForm(
                meal.analysis, version: 1, csrf: browser.csrf,
                [
                    "item0_remove": "1", "own_totals": "1", "total_kcal": "999", "total_protein": "9",
                    "total_carbs": "99",
                    "total_fats": "19",
                ]),
            cookie: browser.cookie)
        #expect(reply.status == 303)
        let stored = try #require(try station.store.storedMeal(PhotoID("m1")))
        #expect(stored.meal.analysis.items.map(\.name) == ["Tomato sauce"])
        #expect(stored.meal.analysis.totals == Macros(calories: 999, protein: 9, carbs: 99, fats: 19))
        #expect(stored.totalsSetByOwner)
    }

    @Test("should bring a failed edit back as it was typed: each wrong field marked and linked, the first focused")
    func failedEditKeepsWhatWasTyped() async throws {
        let station = try WebTestStation()
        let meal = try station.meal("m1")
        let browser = try await station.pair()
        let changes = [
            "title": "Spaghetti al pomodoro", "item0_grams": "", "item0_kcal": "333", "item1_fats": "lots",
            "item1_remove": "1", "new_name": "Bread",
        ]
        let reply = await station.post(
            "/meal/m1", mealForm(meal.analysis, version: 1, csrf: browser.csrf, changes), cookie: browser.cookie)
        #expect(reply.status == 400)
        let page = reply.text
        // Everything typed is back, the right ones too, and the ticked box.
        #expect(page.contains("value=\"Spaghetti al pomodoro\"") && page.contains("value=\"333\""))
        #expect(page.contains("value=\"Bread\"") && page.contains("value=\"lots\""))
        #expect(page.contains("name=\"item1_remove\" value=\"1\" checked"))
        #expect(page.contains("<details class=\"edit\" open>"), "the edit panel is open")
        // The removed item's fields are not read, so not wrong; the empty grams, and the new item's empty
        // numbers, are. Each is marked, its message tied to it, and linked from the summary at the top.
        let wrong = ["item0_grams", "new_grams", "new_kcal", "new_protein", "new_carbs", "new_fats"]
        for field in wrong {
            #expect(
                page.contains("id=\"f-\(field)\" aria-invalid=\"true\" aria-describedby=\"f-\(field)-problem\""),
                "\(field) marked")
            #expect(page.contains("<small class=\"field-problem\" id=\"f-\(field)-problem\">"), "\(field)'s message")
            #expect(page.contains("<a href=\"#f-\(field)\">"), "\(field) in the summary")
        }
        #expect(!page.contains("id=\"f-item1_fats\" aria-invalid"), "a removed item's field is not read")
        #expect(page.components(separatedBy: " autofocus").count == 2, "one field takes the focus")
        #expect(page.contains("aria-describedby=\"f-item0_grams-problem\" autofocus"), "the first wrong one")
        #expect(page.contains("Not saved: 6 fields need a look."))
        let stored = try #require(try station.store.storedMeal(PhotoID("m1")))
        #expect(stored.version == 1 && stored.meal.analysis == meal.analysis, "nothing written")
    }

    @Test("should refuse bad numbers with a message naming the field, and write nothing")
    func badNumbers() async throws {
        let station = try WebTestStation()
        let meal = try station.meal("m1")
        let browser = try await station.pair()
        let cases: [([String: String], String)] = [
            (["item0_grams": "-5"], "Item 1's grams: -5 is outside 0–5000"),
            (["item1_kcal": "99999999"], "Item 2's kcal: 99999999 is outside 0–10000"),
            (["item0_protein": "lots"], "Item 1's protein: \"lots\" is not a whole number"),
            (["title": ""], "The title is empty"),
            (["title": String(repeating: "x", count: 81)], "The title is longer than 80 characters"),
            (["items": "3"], "does not match the meal"),
            (["new_name": "Bread", "new_grams": "1e9"], "The new item's grams"),
            (["version": "zero"], "The version"),
        ]
        for (changes, message) in cases {
            let reply = await station.post(
                "/meal/m1", mealForm(meal.analysis, version: 1, csrf: browser.csrf, changes), cookie: browser.cookie)
            #expect(reply.status == 400, "\(changes)")
            #expect(reply.text.contains("Not saved: "), "\(changes)")
            #expect(reply.text.contains(HTML.escaped(message)), "\(changes): \(message)")
        }
        let stored = try #require(try station.store.storedMeal(PhotoID("m1")))
        #expect(stored.version == 1 && stored.meal.analysis == meal.analysis)
        #expect(station.link.events == [.paired("Test phone")])
        // A broken form and a huge one.
        var broken = await station.post("/meal/m1", [], cookie: browser.cookie)
        broken = await station.app.respond(
            WebRequest(
                method: .post, target: "/meal/m1", body: Array("csrf=\(browser.csrf)&title=%ZZ".utf8),
                headers: WebTestStation.withHost([
                    "Cookie": browser.cookie, "Content-Type": "application/x-www-form-urlencoded",
                ])))
        #expect(broken.status == 400)
        let huge = await station.app.respond(
            WebRequest(
                method: .post, target: "/meal/m1", body: [UInt8](repeating: 0x61, count: Form.maxBytes + 1),
                headers: WebTestStation.withHost([
                    "Cookie": browser.cookie, "Content-Type": "application/x-www-form-urlencoded",
                ])))
        #expect(huge.status == 413)
    }

    @Test("should refuse an edit made against an older version (two phones), and one of a deleted meal")
    func concurrentEdits() async throws {
        let station = try WebTestStation()
        let meal = try station.meal("m1")
        let phone = try await station.pair(name: "Phone")
        let tablet = try await station.pair(name: "Tablet")
        #expect(
            await station.post(
                "/meal/m1", mealForm(meal.analysis, version: 1, csrf: phone.csrf, ["title": "From the phone"]),
                cookie: phone.cookie
            ).status == 303)
        let late = await station.post(
            "/meal/m1", mealForm(meal.analysis, version: 1, csrf: tablet.csrf, ["title": "From the tablet"]),
            cookie: tablet.cookie)
        #expect(late.status == 409)
        #expect(late.text.contains("changed elsewhere"))
        #expect(late.text.contains("From the phone"))
        #expect(try station.store.storedMeal(PhotoID("m1"))?.meal.analysis.title == "From the phone")

        #expect(await station.get("/meal/m1/delete", cookie: phone.cookie).text.contains("cannot be undone"))
        let deleted = await station.post("/meal/m1/delete", [("csrf", phone.csrf)], cookie: phone.cookie)
        #expect(deleted.status == 303 && deleted.header("Location") == "/?saved=deleted")
        #expect(try station.store.storedMeal(PhotoID("m1")) == nil)
        #expect(!FileManager.default.fileExists(atPath: meal.photo.photoPath))
        #expect(station.link.events.last == .mealsChanged(day: meal.day, []))
        let again = await station.post("/meal/m1/delete", [("csrf", tablet.csrf)], cookie: tablet.cookie)
        #expect(again.status == 404)
        let edit = await station.post(
            "/meal/m1", mealForm(meal.analysis, version: 2, csrf: tablet.csrf), cookie: tablet.cookie)
        #expect(edit.status == 404)
        #expect(edit.text.contains("deleted"))
    }

    @Test("should review the result on the station's screen: save it edited, or discard it")
    func review() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        #expect(await station.get("/review", cookie: browser.cookie).text.contains("shows no meal result"))
        let template = try station.meal("m1")
        _ = try station.store.deleteMeal(PhotoID("m1"))
        let paths = station.store.paths(for: PhotoID("r1"), day: station.today)
        let photo = ProcessedPhoto(
            id: PhotoID("r1"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: station.now)
        try station.store.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        let analysis = template.analysis
        station.link.show(
            .mealResult(MealResultScreen(photo: photo, analysis: analysis, clashes: [[], []], autoSaveIn: 12)))
        // The station's loop: a submitted review is saved as sent (or discarded).
        let store = station.store
        station.link.onEvent.withLock {
            $0 = { event in
                if case .reviewSubmitted(let id, let edited?) = event {
                    try? store.saveMeal(
                        Meal(photo: photo, day: LocalDay(year: 2026, month: 11, day: 23), analysis: edited))
                    _ = id
                }
            }
        }
        let page = await station.get("/review", cookie: browser.cookie).text
        #expect(page.contains("Spaghetti") && page.contains("in 12 s"))
        #expect(await station.get("/", cookie: browser.cookie).text.contains("href=\"/review\""))
        // A review with a wrong field stays on the review, as it was typed, the field marked; nothing is sent.
        let failed = await station.post(
            "/review",
            mealForm(
                analysis, version: nil, csrf: browser.csrf,
                ["photo": "r1", "decision": "save", "item0_kcal": "401", "item1_grams": "-1"]),
            cookie: browser.cookie)
        #expect(failed.status == 400 && failed.text.contains("<form method=\"post\" action=\"/review\""))
        #expect(failed.text.contains("value=\"401\"") && failed.text.contains("value=\"-1\""))
        #expect(failed.text.contains("id=\"f-item1_grams\" aria-invalid=\"true\""))
        #expect(!station.link.events.contains { if case .reviewSubmitted = $0 { true } else { false } })
        let saved = await station.post(
            "/review",
            mealForm(
                analysis, version: nil, csrf: browser.csrf, ["photo": "r1", "decision": "save", "item0_kcal": "400"]),
            cookie: browser.cookie)
        #expect(saved.status == 303)
        #expect(saved.header("Location") == "/meal/r1?saved=1")
        guard
            case .reviewSubmitted(PhotoID("r1"), let sent?)? = station.link.events.last(where: {
                if case .reviewSubmitted = $0 { true } else { false }
            })
        else {
            Issue.record("no review was sent: \(station.link.events)")
            return
        }
        #expect(sent.totals.calories == 610)
        #expect(try station.store.storedMeal(PhotoID("r1"))?.meal.analysis.totals.calories == 610)

        // The station saved it by itself before the owner's edit came: the stored meal becomes the edit.
        station.link.show(nil)
        let late = await station.post(
            "/review",
            mealForm(sent, version: nil, csrf: browser.csrf, ["photo": "r1", "decision": "save", "title": "Late"]),
            cookie: browser.cookie)
        #expect(late.status == 303)
        #expect(try station.store.storedMeal(PhotoID("r1"))?.meal.analysis.title == "Late")
        // Discarded after the station saved it: deleted.
        let discard = await station.post(
            "/review", [("csrf", browser.csrf), ("photo", "r1"), ("decision", "discard")], cookie: browser.cookie)
        #expect(discard.status == 303)
        #expect(try station.store.storedMeal(PhotoID("r1")) == nil)
        #expect(
            await station.post(
                "/review", [("csrf", browser.csrf), ("photo", "r1"), ("decision", "save")], cookie: browser.cookie
            )
            .status == 404)
    }

    @Test("should gather a shopping list from meals, merged by name and unit; edit, tick, clear, export")
    func shopping() async throws {
        let station = try WebTestStation()
        try station.meal("m1")
        try station.meal("m2")
        let browser = try await station.pair()
        #expect(await station.get("/shopping", cookie: browser.cookie).text.contains("The list is empty"))
        #expect(
            await station.post(
                "/shopping/add", [("csrf", browser.csrf), ("meal", "m1"), ("meal", "m2")], cookie: browser.cookie
            )
            .status == 303)
        var list = try station.store.shoppingList()
        #expect(list.map(\.name).sorted() == ["Olive oil", "Spaghetti", "Tomatoes"])
        #expect(list.first { $0.name == "Tomatoes" }?.amount == 600)
        #expect(list.first { $0.name == "Spaghetti" }.map { ($0.amount, $0.unit) } ?? (0, "") == (400, "g"))
        let oil = try #require(list.first { $0.name == "Olive oil" })
        let tomatoes = try #require(list.first { $0.name == "Tomatoes" })
        var fields = [("csrf", browser.csrf)]
        for item in list {
            fields += [
                ("line", "\(item.id)"), ("line\(item.id)_name", item.name),
                ("line\(item.id)_amount", item.id == oil.id ? "20,5" : "\(item.amount)"),
                ("line\(item.id)_unit", item.unit),
            ]
            if item.id == tomatoes.id { fields.append(("line\(item.id)_ticked", "1")) }
        }
        fields += [("new_name", "Bread"), ("new_amount", ""), ("new_unit", "")]
        #expect(await station.post("/shopping", fields, cookie: browser.cookie).status == 303)
        list = try station.store.shoppingList()
        #expect(list.first { $0.name == "Olive oil" }?.amount == 20.5)
        #expect(list.first { $0.name == "Tomatoes" }?.ticked == true)
        #expect(list.first { $0.name == "Bread" }.map { ($0.amount, $0.unit) } ?? (0, "") == (1, "piece"))
        let text = await station.get("/shopping.txt", cookie: browser.cookie)
        #expect(text.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(text.text.contains("[x] 600 g Tomatoes") && text.text.contains("[ ] 20.50 ml Olive oil"))
        #expect(await station.post("/shopping/clear", [("csrf", browser.csrf)], cookie: browser.cookie).status == 303)
        #expect(try station.store.shoppingList().map(\.name).sorted() == ["Bread", "Olive oil", "Spaghetti"])
        let bad = await station.post(
            "/shopping",
            [
                ("csrf", browser.csrf), ("line", "\(oil.id)"), ("line\(oil.id)_name", "Oil"),
                ("line\(oil.id)_amount", "-1"),
            ],
            cookie: browser.cookie)
        #expect(bad.status == 400 && bad.text.contains("The amount of Oil: -1 is outside 0–100000"))
        // A failed list comes back as it was sent: every wrong line's field marked, the others as typed.
        let spaghetti = try #require(list.first { $0.name == "Spaghetti" })
        let failed = await station.post(
            "/shopping",
            [
                ("csrf", browser.csrf), ("line", "\(oil.id)"), ("line\(oil.id)_name", "Good oil"),
                ("line\(oil.id)_amount", "lots"), ("line\(oil.id)_unit", "ml"), ("line\(oil.id)_ticked", "1"),
                ("line", "\(spaghetti.id)"), ("line\(spaghetti.id)_name", ""), ("line\(spaghetti.id)_amount", "500"),
                ("line\(spaghetti.id)_unit", "g"), ("new_name", "Basil"), ("new_amount", "2"), ("new_unit", "bunch"),
            ],
            cookie: browser.cookie)
        #expect(failed.status == 400 && failed.text.contains("Not saved: 2 fields need a look."))
        for field in ["line\(oil.id)_amount", "line\(spaghetti.id)_name"] {
            #expect(failed.text.contains("id=\"f-\(field)\" aria-invalid=\"true\""), "\(field)")
            #expect(failed.text.contains("<a href=\"#f-\(field)\">"), "\(field)")
        }
        #expect(failed.text.contains("aria-describedby=\"f-line\(oil.id)_amount-problem\" autofocus"))
        for typed in ["Good oil", "lots", "500", "Basil", "bunch"] {
            #expect(failed.text.contains("value=\"\(typed)\""), "\(typed) kept")
        }
        #expect(failed.text.contains("name=\"line\(oil.id)_ticked\" value=\"1\" checked"), "the tick kept")
        #expect(try station.store.shoppingList().map(\.name).sorted() == ["Bread", "Olive oil", "Spaghetti"])
        #expect(
            await station.post("/shopping/add", [("csrf", browser.csrf), ("meal", "gone")], cookie: browser.cookie)
                .status
                == 404)
    }

    @Test("should store settings over the config's, tell the station, and leave locked ones alone")
    func settings() async throws {
        let station = try WebTestStation(locked: ["countdown.seconds"])
        let browser = try await station.pair()
        let page = await station.get("/settings", cookie: browser.cookie).text
        #expect(page.contains("locked by the config file (countdown.seconds)"))
        #expect(
            page.contains(
                "name=\"countdown\" id=\"countdown\" type=\"number\" required min=\"0\" max=\"10\" value=\"3\" disabled"
            ))
        let reply = await station.post(
            "/settings",
            [
                ("csrf", browser.csrf), ("dietary_shown", "1"), ("dietary", "vegan"), ("filter", "mono"),
                ("intensity", "0.6"), ("countdown", "7"), ("mode", "meal"),
            ],
            cookie: browser.cookie)
        #expect(reply.status == 303)
        let expected = RuntimeSettings(
            dietaryPreferences: [.vegan], filter: .mono, intensity: 0.6, flash: false, mode: .meal)
        #expect(try station.store.runtimeSettings() == expected)
        // The config's mode, chosen: stored as nothing, the station told to be in it now.
        #expect(station.link.events.last == .settingsChanged(.form(expected, mode: .meal)))
        #expect(
            await station.get("/settings", cookie: browser.cookie).text.contains("<option value=\"mono\" selected>"))
        let bad = await station.post(
            "/settings", [("csrf", browser.csrf), ("intensity", "7"), ("flash", "1")], cookie: browser.cookie)
        #expect(bad.status == 400 && bad.text.contains("The intensity: 7 is outside 0–1"))
        let badFilter = await station.post(
            "/settings", [("csrf", browser.csrf), ("filter", "x-ray")], cookie: browser.cookie)
        #expect(badFilter.status == 400)
        #expect(try station.store.runtimeSettings() == expected)
        #expect(
            await station.post("/settings", [("csrf", browser.csrf), ("reset", "1")], cookie: browser.cookie).status
                == 303)
        #expect(try station.store.runtimeSettings() == RuntimeSettings())
    }

    @Test("should speak the language the owner chooses, with its numbers and days, and refuse one it lacks")
    func language() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let english = await station.get("/settings", cookie: browser.cookie).text
        #expect(english.contains("<html lang=\"en\">") && english.contains("<option value=\"de\">Deutsch</option>"))
        let reply = await station.post(
            "/settings", [("csrf", browser.csrf), ("language", "de"), ("intensity", "0.5")], cookie: browser.cookie)
        #expect(reply.status == 303)
        #expect(try station.store.runtimeSettings().language == .de)
        if case .settingsChanged(.form(let told, _))? = station.link.events.last {
            #expect(told.language == .de)
        } else {
            Issue.record("the station was not told: \(station.link.events)")
        }
        let german = Words(.de)
        let settings = await station.get("/settings", cookie: browser.cookie).text
        #expect(settings.contains("<html lang=\"de\">"))
        #expect(settings.contains("<h1>\(german("page.settings.title"))</h1>"), "\(settings)")
        #expect(settings.contains(german("page.nav.today")) && !settings.contains(">Today</a>"))
        #expect(settings.contains("0,5"), "the intensity with a decimal comma")
        let day = station.today.adding(days: -2)
        try station.meal("past", day: day)
        let history = await station.get("/history", cookie: browser.cookie).text
        #expect(history.contains(german.day(year: day.year, month: day.month, day: day.day, weekday: day.weekday)))
        #expect(!history.contains(Words(.en).weekday(day.weekday)), "no English weekday: \(history)")
        let bad = await station.post(
            "/settings", [("csrf", browser.csrf), ("language", "tlh")], cookie: browser.cookie)
        #expect(bad.status == 400)
        #expect(try station.store.runtimeSettings().language == .de)
    }

    @Test("should keep the owner's daily goals and show Today against them, over the goal in its own colour")
    func goals() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let meal = try station.meal("m1")
        #expect(await !station.get("/", cookie: browser.cookie).text.contains("<meter"), "no goals, no meters")
        let reply = await station.post(
            "/settings",
            [
                ("csrf", browser.csrf), ("goal_kcal", "2000"), ("goal_protein", "\(meal.analysis.totals.protein - 1)"),
                ("goal_carbs", "0"), ("goal_fats", "70"),
            ],
            cookie: browser.cookie)
        #expect(reply.status == 303)
        let goals = Macros(calories: 2000, protein: meal.analysis.totals.protein - 1, carbs: 0, fats: 70)
        #expect(try station.store.runtimeSettings().goals == goals)
        if case .settingsChanged(.form(let told, _))? = station.link.events.last {
            #expect(told.goals == goals)
        } else {
            Issue.record("the station was not told: \(station.link.events)")
        }
        let today = await station.get("/", cookie: browser.cookie).text
        #expect(
            today.contains("<meter min=\"0\" max=\"2000\" high=\"2000\" value=\"\(meal.analysis.totals.calories)\">"))
        #expect(today.contains("\(meal.analysis.totals.calories) / 2000 kcal"))
        #expect(today.components(separatedBy: "<meter").count == 4, "kcal, protein and fats; carbs has no goal")
        #expect(today.contains("<li class=\"over\"><span>Protein</span>"), "past the protein goal")
        let bad = await station.post(
            "/settings",
            [
                ("csrf", browser.csrf), ("goal_kcal", "-5"), ("goal_protein", "0"), ("goal_carbs", "0"),
                ("goal_fats", "0"),
            ], cookie: browser.cookie)
        #expect(bad.status == 400 && bad.text.contains("Energy"))
        #expect(try station.store.runtimeSettings().goals == goals)
    }

    @Test("should draw a failed settings form again as it was sent, each wrong field marked, the first focused")
    func failedSettingsKeepWhatWasTyped() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let failed = await station.post(
            "/settings",
            [
                ("csrf", browser.csrf), ("dietary_shown", "1"), ("dietary", "vegan"), ("filter", "mono"),
                ("intensity", "0.35"), ("countdown", "99"), ("goal_kcal", "1800"), ("goal_protein", "lots"),
                ("goal_carbs", "0"), ("goal_fats", "-3"), ("quiet_from", "22:00"), ("quiet_until", ""),
            ], cookie: browser.cookie)
        let page = failed.text
        #expect(failed.status == 400)
        #expect(try station.store.runtimeSettings() == RuntimeSettings(), "nothing of a failed form is kept")
        // Every wrong field marked and linked from the summary, in the form's order; the first has the focus.
        let wrong = ["countdown", "quiet_from", "goal_protein", "goal_fats"]
        for field in wrong {
            #expect(
                page.contains("id=\"\(field)\" aria-invalid=\"true\" aria-describedby=\"\(field)-problem\""), "\(field)"
            )
            #expect(page.contains("<small class=\"field-problem\" id=\"\(field)-problem\">"), "\(field)")
            #expect(page.contains("<a href=\"#\(field)\">"), "\(field)")
        }
        #expect(page.contains("Not saved: 4 fields need a look."))
        #expect(page.components(separatedBy: " autofocus").count == 2, "one field has the focus")
        #expect(page.contains("aria-describedby=\"countdown-problem\" autofocus"))
        let links = wrong.compactMap { page.range(of: "<a href=\"#\($0)\">")?.lowerBound }
        #expect(links.count == 4 && links == links.sorted(), "the summary in the page's order")
        #expect(!page.contains("id=\"goal_kcal\" aria-invalid"), "a right field is not marked")
        // What was typed stays, right or wrong.
        #expect(
            page.contains("name=\"countdown\" id=\"countdown\" aria-invalid=\"true\"") && page.contains("value=\"99\""))
        #expect(page.contains("value=\"lots\"") && page.contains("value=\"1800\"") && page.contains("value=\"-3\""))
        #expect(page.contains("value=\"22:00\""))
        #expect(page.contains("<option value=\"mono\" selected>"))
        #expect(page.contains("value=\"vegan\" checked") && !page.contains("value=\"vegetarian\" checked"))
        #expect(
            page.contains("value=\"0.35\"") && page.contains("filter=mono&amp;intensity=0.35"), "the preview as typed")
        // Drawn fresh, the form shows the settings in force again.
        let fresh = await station.get("/settings", cookie: browser.cookie).text
        #expect(!fresh.contains("aria-invalid") && !fresh.contains("value=\"99\""))
    }

    @Test("should not offer the flash where no LED is wired, nor store it as turned off by the form's silence")
    func noFlashLED() async throws {
        let station = try WebTestStation(ledWired: false)
        let browser = try await station.pair()
        let page = await station.get("/settings", cookie: browser.cookie).text
        #expect(page.contains("No flash LED is wired") && !page.contains("name=\"flash\""))
        let reply = await station.post(
            "/settings", [("csrf", browser.csrf), ("countdown", "5")], cookie: browser.cookie)
        #expect(reply.status == 303)
        #expect(try station.store.runtimeSettings() == RuntimeSettings(countdownSeconds: 5))
    }

    @Test("should offer the cameras the config names, keep the one chosen, and refuse one it does not name")
    func cameras() async throws {
        let single = try WebTestStation()
        let alone = try await single.pair()
        #expect(await single.get("/settings", cookie: alone.cookie).text.contains("the only one configured"))
        let station = try WebTestStation(otherCameras: [.init(backend: .v4l2, id: "/dev/video2")])
        let browser = try await station.pair()
        let page = await station.get("/settings", cookie: browser.cookie).text
        #expect(page.contains("<option value=\"0\" selected>1. Simulated</option>"))
        #expect(page.contains("<option value=\"1\">2. USB video2</option>"))
        #expect(
            await station.post("/settings", [("csrf", browser.csrf), ("camera", "1")], cookie: browser.cookie).status
                == 303)
        #expect(try station.store.runtimeSettings().camera == 1)
        if case .settingsChanged(.form(let told, _))? = station.link.events.last {
            #expect(told.camera == 1)
        } else {
            Issue.record("the station was not told: \(station.link.events)")
        }
        #expect(await station.get("/settings", cookie: browser.cookie).text.contains("<option value=\"1\" selected>"))
        let bad = await station.post("/settings", [("csrf", browser.csrf), ("camera", "2")], cookie: browser.cookie)
        #expect(bad.status == 400 && bad.text.contains("The camera"))
        #expect(try station.store.runtimeSettings().camera == 1)
    }

    @Test("should preview a filter on the last capture, before and after")
    func preview() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        #expect(await station.get("/settings/preview.jpg?which=before", cookie: browser.cookie).status == 404)
        station.link.keep(TestImages.marked(width: 640, height: 480))
        let before = await station.get("/settings/preview.jpg?which=before", cookie: browser.cookie)
        let after = await station.get(
            "/settings/preview.jpg?which=after&filter=mono&intensity=1", cookie: browser.cookie)
        #expect(before.header("Content-Type") == "image/jpeg")
        let (plain, mono) = (try JPEG.decode(before.body), try JPEG.decode(after.body))
        #expect(plain.width == 480 && plain.height == 360)
        #expect(TestImages.psnr(plain, mono) < 25)
        let pixel = mono.rgb(x: 10, y: 10)
        #expect(abs(Int(pixel.red) - Int(pixel.green)) <= 6 && abs(Int(pixel.green) - Int(pixel.blue)) <= 6)
    }

    @Test("should list the meals the AI could not analyse with why, and ask again for one on request")
    func analyseAgain() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        #expect(await station.get("/status", cookie: browser.cookie).text.contains("None this week."))
        let paths = station.store.paths(for: PhotoID("m9"), day: station.today)
        let photo = ProcessedPhoto(
            id: PhotoID("m9"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: station.now)
        try station.store.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        try station.store.beginAnalysis(photo, day: station.today, now: station.now)
        try station.store.failAnalysis(
            photo.id, error: AIFailure.modelUnavailable("gpt-9").message, nextAttempt: nil)
        let status = await station.get("/status", cookie: browser.cookie).text
        #expect(status.contains("Model gpt-9 is not available to this key") && status.contains("Ask the AI again"))
        #expect(await station.get("/photo/m9.thumb.jpg", cookie: browser.cookie).status == 200)
        let reply = await station.post(
            "/status/analyse", [("csrf", browser.csrf), ("meal", "m9")], cookie: browser.cookie)
        #expect(reply.status == 303)
        #expect(try station.store.dueAnalyses(now: station.now).due.map(\.photo.id) == [photo.id])
        #expect(station.link.events.last == .analysisRetryAsked(photo.id))
        #expect(await station.get("/status?asked=1", cookie: browser.cookie).text.contains("Asked again"))
        let again = await station.post(
            "/status/analyse", [("csrf", browser.csrf), ("meal", "m9")], cookie: browser.cookie)
        #expect(again.status == 404, "no longer a failed analysis")
    }

    @Test("should name the stored reason and the station's screen on the status page in the page's language")
    func statusInGerman() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let paths = station.store.paths(for: PhotoID("m8"), day: station.today)
        let photo = ProcessedPhoto(
            id: PhotoID("m8"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: station.now)
        try station.store.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        try station.store.beginAnalysis(photo, day: station.today, now: station.now)
        // The queue keeps the log's English sentence; the page says it in its own words.
        try station.store.failAnalysis(photo.id, error: AIFailure.unauthorized.message, nextAttempt: nil)
        #expect(
            await station.post("/settings", [("csrf", browser.csrf), ("language", "de")], cookie: browser.cookie).status
                == 303)
        station.link.show(.week(WeekScreen(days: [], goals: .zero)))
        let status = await station.get("/status", cookie: browser.cookie).text
        let german = Words(.de)
        #expect(status.contains(german.aiFailure(.unauthorized)) && !status.contains(AIFailure.unauthorized.message))
        #expect(status.contains(german("page.screen.week")), "the screen by what it shows, not its name")
        #expect(AIFailure(message: AIFailure.modelUnavailable("gpt-9").message) == nil, "its own words stay")
        #expect(AIFailure(message: AIFailure.refused("nope").message) == .refused(""))
    }

    @Test("should show the group's photos with their delivery and expiry, and the station's status")
    func groupAndStatus() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let paths = station.store.paths(for: PhotoID("g1"), day: station.today)
        let photo = ProcessedPhoto(
            id: PhotoID("g1"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: station.now)
        try station.store.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        #expect(try station.store.share(photo, group: "Friends", day: station.today, now: station.now))
        let group = await station.get("/group", cookie: browser.cookie).text
        #expect(group.contains("<b>Friends</b>: 12:00") && group.contains("waiting to send"))
        #expect(group.contains("/photo/g1.jpg?download=1"))
        let status = await station.get("/status", cookie: browser.cookie).text
        #expect(status.contains("no display is connected to card1"))
        #expect(status.contains(StationVersion.current))
        #expect(status.contains("1 photo to send"))
        #expect(status.contains("0 of 10 used, 10 left"))
        #expect(status.contains("MB free"))
        let none = try WebTestStation(groups: [])
        let other = try await none.pair()
        #expect(
            await none.get("/group", cookie: other.cookie).text.contains(
                "No group: this station shares through a folder"))
    }
}
