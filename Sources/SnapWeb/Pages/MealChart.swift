import SnapCore
import SnapText

/// Days of the meal log as a chart the server draws in SVG (no JavaScript, no chart library): a bar per
/// day of its kcal, split into the energy that came from protein, carbs and fats (4, 4 and 9 kcal a
/// gram, scaled to the day's kcal), and the kcal goal as a dashed line. Each bar carries its day and
/// kcal as data and a title a phone shows on a long press.
struct MealChart {
    var days: [LocalDay]
    var totals: [LocalDay: Macros]
    /// The daily kcal goal; 0 for none.
    var goal: Int

    /// The days with meals, their average kcal, and how many were over and under the goal.
    var summary: (logged: Int, average: Int?, over: Int, under: Int) {
        let logged = days.compactMap { totals[$0] }
        let average = logged.isEmpty ? nil : logged.reduce(0) { $0 + $1.calories } / logged.count
        let over = goal > 0 ? logged.filter { $0.calories > goal }.count : 0
        let under = goal > 0 ? logged.filter { $0.calories <= goal }.count : 0
        return (logged.count, average, over, under)
    }

    static let width = 700.0
    static let height = 220.0
    static let plot = (left: 80.0, right: 692.0, top: 12.0, bottom: 186.0)

    /// The chart; `every` labels every n-th day on the axis (1 for a week, 5 for a month). Written into one
    /// string as it goes (`MarkupWriter`): History draws two charts a request, and building each of a bar's
    /// parts as a value of its own and joining them was half of its time.
    func svg(_ row: RowWords, label: String, every: Int) -> HTML {
        let words = row.words
        let plot = Self.plot
        let highest = max(Double(goal) * 1.15, Double(days.compactMap { totals[$0]?.calories }.max() ?? 0) * 1.05, 100)
        let y = { (kcal: Double) in plot.bottom - (plot.bottom - plot.top) * kcal / highest }
        let slot = (plot.right - plot.left) / Double(max(1, days.count))
        var svg = MarkupWriter(capacity: 600 + days.count * 420)
        svg.raw(
            "<svg class=\"chart\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"")
        svg.text(label)
        svg.raw("\" xmlns=\"http://www.w3.org/2000/svg\">")
        // The scale: 0 and the top, in kcal.
        for value in [0, Int(highest / 100) * 100] {
            let level = y(Double(value))
            svg.line("grid", from: plot.left, to: plot.right, at: level)
            svg.label("axis", x: plot.left - 4, y: level + 4, anchor: "end", words.integer(value))
        }
        for (index, day) in days.enumerated() {
            let x = plot.left + slot * Double(index)
            if index % every == 0 || index == days.count - 1 {
                let text = every == 1 ? words.shortWeekday(day.weekday) : String(day.day)
                svg.label("axis", x: x + slot / 2, y: Self.height - 14, anchor: "middle", text)
            }
            guard let totals = totals[day] else { continue }
            bar(day, totals, x: x + slot * 0.15, width: slot * 0.7, y: y, row, into: &svg)
        }
        if goal > 0 {
            let level = y(Double(goal))
            svg.line("goal", from: plot.left, to: plot.right, at: level)
            svg.label(
                "goal", x: plot.right, y: level - 4, anchor: "end", words("page.chart.goal", ["kcal": row.kcal(goal)]))
        }
        svg.raw("</svg>")
        return svg.html
    }

    /// One day's bar: protein, carbs and fats stacked from the bottom, their heights the day's kcal split
    /// by the energy each brought.
    private func bar(
        _ day: LocalDay, _ totals: Macros, x: Double, width: Double, y: (Double) -> Double, _ row: RowWords,
        into svg: inout MarkupWriter
    ) {
        svg.raw(
            "<g class=\"day\(goal > 0 && totals.calories > goal ? " over" : "")\" data-day=\"\(day.description)\" data-kcal=\""
        )
        svg.integer(totals.calories)
        svg.raw("\"><title>")
        svg.text(row.day(day))
        svg.text(": ")
        svg.text(row.kcal(totals.calories))
        svg.text(" · ")
        svg.text(row.macros(totals))
        svg.raw("</title>")
        let energy = (Double(totals.protein) * 4, Double(totals.carbs) * 4, Double(totals.fats) * 9)
        let sum = energy.0 + energy.1 + energy.2
        if sum == 0 {
            // Without macros, one plain bar.
            svg.rect("kcal", x: x, width: width, from: y(0), to: y(Double(totals.calories)))
        } else {
            var base = 0.0
            for (part, name) in [(energy.0, "p"), (energy.1, "c"), (energy.2, "f")] {
                let top = base + Double(totals.calories) * part / sum
                svg.rect(name, x: x, width: width, from: y(base), to: y(top))
                base = top
            }
        }
        svg.raw("</g>")
    }
}
