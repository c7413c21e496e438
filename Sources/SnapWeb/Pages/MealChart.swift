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
    static let plot = (left: 44.0, right: 692.0, top: 12.0, bottom: 186.0)

    /// The chart; `every` labels every n-th day on the axis (1 for a week, 5 for a month).
    func svg(_ row: RowWords, label: String, every: Int) -> HTML {
        let words = row.words
        let plot = Self.plot
        let highest = max(Double(goal) * 1.15, Double(days.compactMap { totals[$0]?.calories }.max() ?? 0) * 1.05, 100)
        let y = { (kcal: Double) in plot.bottom - (plot.bottom - plot.top) * kcal / highest }
        let slot = (plot.right - plot.left) / Double(max(1, days.count))
        var parts: [HTML] = []
        // The scale: 0 and the top, in kcal.
        for value in [0, Int(highest / 100) * 100] {
            parts.append(
                """
                <line class="grid" x1="\(Self.round(plot.left))" x2="\(Self.round(plot.right))" y1="\(Self.round(y(Double(value))))" y2="\(Self.round(y(Double(value))))"/>\
                <text class="axis" x="\(Self.round(plot.left - 4))" y="\(Self.round(y(Double(value)) + 4))" text-anchor="end">\(words.integer(value))</text>
                """)
        }
        for (index, day) in days.enumerated() {
            let x = plot.left + slot * Double(index)
            if index % every == 0 || index == days.count - 1 {
                let text = every == 1 ? words.shortWeekday(day.weekday) : String(day.day)
                parts.append(
                    "<text class=\"axis\" x=\"\(Self.round(x + slot / 2))\" y=\"\(Self.round(Self.height - 14))\" text-anchor=\"middle\">\(text)</text>"
                )
            }
            guard let day = totals[day].map({ (day, $0) }) else { continue }
            parts.append(bar(day.0, day.1, x: x + slot * 0.15, width: slot * 0.7, y: y, row))
        }
        if goal > 0 {
            let level = y(Double(goal))
            let line = Self.round(level)
            parts.append(
                """
                <line class="goal" x1="\(Self.round(plot.left))" x2="\(Self.round(plot.right))" y1="\(line)" y2="\(line)"/>\
                <text class="goal" x="\(Self.round(plot.right))" y="\(Self.round(level - 4))" text-anchor="end">\(words("page.chart.goal", ["kcal": words.kcal(goal)]))</text>
                """)
        }
        return """
            <svg class="chart" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" role="img" aria-label="\(label)" \
            xmlns="http://www.w3.org/2000/svg">\(HTML.joined(parts))</svg>
            """
    }

    /// One day's bar: protein, carbs and fats stacked from the bottom, their heights the day's kcal split
    /// by the energy each brought.
    private func bar(
        _ day: LocalDay, _ totals: Macros, x: Double, width: Double, y: (Double) -> Double, _ row: RowWords
    )
        -> HTML
    {
        let energy = [Double(totals.protein) * 4, Double(totals.carbs) * 4, Double(totals.fats) * 9]
        let sum = energy.reduce(0, +)
        var rects: [HTML] = []
        if sum == 0 {
            // Without macros, one plain bar.
            rects.append(rect("kcal", x: x, width: width, from: y(0), to: y(Double(totals.calories))))
        } else {
            var base = 0.0
            for (part, name) in zip(energy, ["p", "c", "f"]) {
                let top = base + Double(totals.calories) * part / sum
                rects.append(rect(name, x: x, width: width, from: y(base), to: y(top)))
                base = top
            }
        }
        let title = "\(row.day(day)): \(row.kcal(totals.calories)) · \(row.macros(totals))"
        return """
            <g class="day\(goal > 0 && totals.calories > goal ? " over" : "")" data-day="\(day.description)" \
            data-kcal="\(totals.calories)"><title>\(title)</title>\(HTML.joined(rects))</g>
            """
    }

    private func rect(_ name: String, x: Double, width: Double, from bottom: Double, to top: Double) -> HTML {
        "<rect class=\"\(name)\" x=\"\(Self.round(x))\" y=\"\(Self.round(top))\" width=\"\(Self.round(width))\" height=\"\(Self.round(max(0, bottom - top)))\"/>"
    }

    private static func round(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return String(tenths / 10) + "." + String(abs(tenths % 10))
    }
}
