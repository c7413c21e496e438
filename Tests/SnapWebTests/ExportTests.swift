import Foundation
import SnapCore
import SnapStore
import SnapTestSupport
import Testing

/// The meal log as CSV and JSON, read back by Python's csv and json modules (what a script or a
/// spreadsheet's importer does) and compared with the store.
@Suite("The owner's page: the meal log exported")
struct ExportTests {
    let folder = TemporaryDirectory("export")
    /// Titles and names a spreadsheet trips on: commas, quotes, line breaks, emoji, a leading quote.
    static let titles = ["Pasta, with \"pesto\"", "Soup\nand bread", "Curry 🍛, mild", "\"Quoted\" start", "=1+1"]

    private func station() async throws -> (WebTestStation, WebTestStation.Browser, [Meal]) {
        let station = try WebTestStation()
        let browser = try await station.pair()
        var meals: [Meal] = []
        for (index, title) in Self.titles.enumerated() {
            let items = [
                MealItem(
                    name: "Item, \"\(index)\"", grams: 100 + index,
                    macros: Macros(calories: 200 + index, protein: index, carbs: 30, fats: 5),
                    contains: [.gluten, .egg]),
                MealItem(
                    name: "Crème fraîche\r\nfat", grams: 20, macros: Macros(calories: 60, protein: 1, carbs: 1, fats: 6)
                ),
            ]
            meals.append(
                try station.meal("e\(index)", title: title, items: items, day: station.today.adding(days: -index)))
        }
        return (station, browser, meals)
    }

    private func python(_ script: String, _ text: [UInt8]) throws -> Any {
        try PythonReader.json(script, reading: text, in: folder.path)
    }

    static let readCSV = """
        import csv, json, sys
        with open(sys.argv[1], encoding="utf-8-sig", newline="") as f:
            print(json.dumps(list(csv.reader(f, strict=True))))
        """

    @Test("should write the meals and their items as CSV that Python's csv module reads back as the store has them")
    func csv() async throws {
        let (station, browser, meals) = try await station()
        let from = station.today.adding(days: -10)
        let reply = await station.get("/export/meals.csv?from=\(from)&to=\(station.today)", cookie: browser.cookie)
        #expect(reply.status == 200 && reply.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(reply.header("Content-Disposition")?.contains("attachment; filename=\"snapstation-") == true)
        #expect(Array(reply.body.prefix(3)) == [0xEF, 0xBB, 0xBF], "a byte-order mark for Excel")
        #expect(reply.text.contains("\r\n"), "RFC 4180's line ends")
        let rows = try #require(try python(Self.readCSV, reply.body) as? [[String]])
        #expect(rows.first == ["date", "time", "title", "kcal", "protein_g", "carbs_g", "fats_g", "items", "id"])
        let expected = meals.sorted { $0.day < $1.day }.map { meal in
            [
                // A title a spreadsheet would run as a formula comes with a ' before it.
                meal.day.description, "12:00", meal.analysis.title == "=1+1" ? "'=1+1" : meal.analysis.title,
                String(meal.analysis.totals.calories),
                String(meal.analysis.totals.protein), String(meal.analysis.totals.carbs),
                String(meal.analysis.totals.fats), "2", meal.photo.id.rawValue,
            ]
        }
        #expect(Array(rows.dropFirst()) == expected)

        let items = await station.get("/export/items.csv?from=\(from)&to=\(station.today)", cookie: browser.cookie)
        let itemRows = try #require(try python(Self.readCSV, items.body) as? [[String]])
        #expect(itemRows.count == 1 + 2 * meals.count)
        let first = try #require(itemRows.first { $0.count > 3 && $0[3] == "Item, \"4\"" })
        #expect(
            first == [
                meals[4].day.description, "12:00", "'=1+1", "Item, \"4\"", "104", "204", "4", "30", "5", "egg gluten",
                "e4",
            ])
        #expect(itemRows.contains { $0.count > 3 && $0[3] == "Crème fraîche\r\nfat" }, "a CR LF inside a field stays")
    }

    @Test("should separate the fields with a semicolon where the language writes a decimal comma, for its Excel")
    func semicolons() async throws {
        let (station, browser, meals) = try await station()
        #expect(
            await station.post("/settings", [("csrf", browser.csrf), ("language", "de")], cookie: browser.cookie).status
                == 303)
        let reply = await station.get(
            "/export/meals.csv?from=\(station.today.adding(days: -10))", cookie: browser.cookie)
        let script = Self.readCSV.replacingOccurrences(of: "strict=True", with: "strict=True, delimiter=\";\"")
        let rows = try #require(try python(script, reply.body) as? [[String]])
        #expect(rows.first?.count == 9 && rows.count == 1 + meals.count)
        #expect(rows.dropFirst().map { $0[2] }.contains("Curry 🍛, mild"), "a comma in a field reads back")
        #expect(reply.text.contains(";\"Curry 🍛, mild\";"), "quoted all the same: a reader set to commas keeps it")
    }

    @Test(
        "should put a ' before every text a spreadsheet would run, also behind invisible characters, and quote both separators"
    )
    func formulas() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let hostile = [
            "\r\n=1+2", "=\u{301}HYPERLINK(\"http://x\")", "+\u{200D}5+6", "@SUM(1)", " =1", "\u{200B}=2", "\t=3",
            "\u{FEFF}-4", "-",
        ]
        let plain = ["Toast;=3+4;x", "Toast", "Apple pie", "5 eggs", "a=b", "a,b"]
        for (index, title) in (hostile + plain).enumerated() {
            _ = try station.meal("f\(index)", title: title, items: [], day: station.today)
        }
        let reply = await station.get(
            "/export/meals.csv?from=\(station.today)&to=\(station.today)", cookie: browser.cookie)
        let rows = try #require(try python(Self.readCSV, reply.body) as? [[String]])
        let titles = rows.dropFirst().map { $0[2] }
        for title in hostile { #expect(titles.contains("'" + title), "\(title.debugDescription) is prefixed") }
        for title in plain { #expect(titles.contains(title), "\(title) reads back as it is") }
        #expect(reply.text.contains(",\"Toast;=3+4;x\","), "a ; in an English export is quoted")
        #expect(CSV.cell("Toast") == "Toast" && CSV.cell("") == "" && CSV.cell("\u{200B}") == "\u{200B}")
        #expect(CSV.field("a;b", ",") == "\"a;b\"" && CSV.field("a,b", ";") == "\"a,b\"")
        #expect(CSV.field("a\tb", ",") == "\"a\tb\"" && CSV.field("plain", ";") == "plain")
        // A quote and a combining mark are one Character: its quote is doubled all the same (Tests/Fuzz `csv`).
        #expect(CSV.field("\"\u{5AF}=1", ",") == "\"\"\"\u{5AF}=1\"")
    }

    @Test("should write the same meals as JSON, keep to the range asked, and refuse a range it cannot cover")
    func json() async throws {
        let (station, browser, meals) = try await station()
        let reply = await station.get(
            "/export/meals.json?from=\(station.today.adding(days: -2))&to=\(station.today)", cookie: browser.cookie)
        #expect(reply.status == 200 && reply.header("Content-Type") == "application/json; charset=utf-8")
        let document = try #require(
            try python(
                "import json, sys; print(json.dumps(json.load(open(sys.argv[1], encoding='utf-8'))))", reply.body)
                as? [String: Any])
        let exported = try #require(document["meals"] as? [[String: Any]])
        #expect(exported.map { $0["title"] as? String } == meals.prefix(3).reversed().map(\.analysis.title))
        let items = try #require(exported.last?["items"] as? [[String: Any]])
        #expect(items.first?["contains"] as? [String] == ["egg", "gluten"])
        #expect((exported.last?["totals"] as? [String: Int])?["kcal"] == meals[0].analysis.totals.calories)
        #expect(
            await station.get(
                "/export/meals.csv?from=\(station.today)&to=\(station.today.adding(days: -1))", cookie: browser.cookie
            ).status == 400)
        #expect(
            await station.get("/export/meals.csv?from=2020-01-01&to=2026-01-01", cookie: browser.cookie).status == 400)
        #expect(await station.get("/export/meals.csv?from=yesterday", cookie: browser.cookie).status == 400)
        #expect(await station.get("/export/meals.xlsx", cookie: browser.cookie).status == 404)
        #expect(await station.get("/export/meals.csv").status != 200, "a browser without a session gets nothing")
        #expect(await station.get("/history", cookie: browser.cookie).text.contains("formaction=\"/export/items.csv\""))
    }
}
