import Foundation
import SnapCore
import SnapTestSupport
import SnapText
import Testing

@testable import SnapWeb

/// History's charts: well-formed SVG (read by Python's XML parser) with each day's bar where its values say.
@Suite("The owner's page: History's charts")
struct MealChartTests {
    let folder = TemporaryDirectory("chart")

    /// The bars Python's ElementTree finds: day, kcal, and the heights of protein, carbs and fats.
    private func bars(_ svg: String) throws -> [[String: String]] {
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            svg = ET.parse(sys.argv[1]).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            bars = []
            for g in svg.iter(ns + "g"):
                bar = {"day": g.get("data-day"), "kcal": g.get("data-kcal"), "over": str("over" in g.get("class"))}
                for rect in g.iter(ns + "rect"):
                    bar[rect.get("class")] = rect.get("height")
                bars.append(bar)
            goal = [line.get("y1") for line in svg.iter(ns + "line") if line.get("class") == "goal"]
            print(json.dumps({"bars": bars, "goal": goal}))
            """
        // Python's parser throws on SVG that is not well-formed XML.
        let parsed = try #require(
            try PythonReader.json(script, reading: Array(svg.utf8), in: folder.path) as? [String: Any])
        return try #require(parsed["bars"] as? [[String: String]])
    }

    /// The week of Europe's change to summer time (Sunday 29 March 2026 has 23 hours): seven days, one
    /// bar each, none lost or doubled.
    @Test("should draw a known week across a daylight-saving change with each day's values")
    func week() throws {
        let days = (0..<7).map { LocalDay(year: 2026, month: 3, day: 26).adding(days: $0) }
        #expect(days.map(\.description).last == "2026-04-01")
        var totals: [LocalDay: Macros] = [:]
        for (index, day) in days.enumerated() where index != 2 {
            totals[day] = Macros(calories: 1500 + index * 100, protein: 100, carbs: 150, fats: 50)
        }
        let chart = MealChart(days: days, totals: totals, goal: 1900)
        let bars = try bars(
            chart.svg(RowWords(Words(.de), timeZone: TimeZone(identifier: "UTC")!), label: "Woche", every: 1).text)
        #expect(bars.map { $0["day"] } == days.enumerated().filter { $0.offset != 2 }.map { $0.element.description })
        #expect(bars.map { $0["kcal"] } == ["1500", "1600", "1800", "1900", "2000", "2100"])
        #expect(bars.map { $0["over"] } == ["False", "False", "False", "False", "True", "True"])
        // Protein 400 kcal, carbs 600, fats 450 of energy: the bar split 400 : 600 : 450.
        let first = try #require(bars.first)
        let heights = try ["p", "c", "f"].map { try #require(Double(first[$0] ?? "")) }
        #expect(abs(heights[1] / heights[0] - 1.5) < 0.05 && abs(heights[2] / heights[0] - 1.125) < 0.05)
        #expect(chart.summary.logged == 6 && chart.summary.over == 2 && chart.summary.under == 4)
        #expect(chart.summary.average == (1500 + 1600 + 1800 + 1900 + 2000 + 2100) / 6)
        // German short weekday names on the axis, Thursday first.
        #expect(
            chart.svg(RowWords(Words(.de), timeZone: TimeZone(identifier: "UTC")!), label: "Woche", every: 1).text
                .contains(">Do</text>"))
    }

    @Test("should show both charts on History with what they say, and none before the first meal")
    func onHistory() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        #expect(await !station.get("/history", cookie: browser.cookie).text.contains("<svg"))
        try station.meal("h1")
        try station.meal("h2", day: station.today.adding(days: -3))
        let page = await station.get("/history", cookie: browser.cookie).text
        #expect(page.components(separatedBy: "<svg class=\"chart\"").count == 3, "a week and a month")
        #expect(page.contains("2 days with meals"))
        let chart = try #require(page.range(of: "<svg class=\"chart\""))
        let end = try #require(page.range(of: "</svg>", range: chart.upperBound..<page.endIndex))
        #expect(try bars(String(page[chart.lowerBound..<end.upperBound])).count == 2)
        // What the bars draw, in numbers: a row a day with meals, newest first, its kcal and grams.
        let values = try #require(page.range(of: "<details class=\"chart-values\">"))
        let rows = page[values.upperBound...].components(separatedBy: "<tr><th scope=\"row\">")
            .dropFirst().map { $0.components(separatedBy: "</tr>")[0] }
        #expect(rows.count == 2, "a row for each of the two days")
        #expect(rows.allSatisfy { $0.contains("<td>530</td><td>14</td><td>79</td><td>13</td>") }, "\(rows)")
        #expect(rows.first?.contains(station.today.day.description) == true, "today first: \(rows)")
    }
}
