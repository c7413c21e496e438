import SnapCore
import SnapText

extension ScreenRenderer {
    /// The last seven days against the kcal goal, read across a kitchen: a bar a day (over the goal in
    /// the warning colour, a day with nothing logged as an empty slot), the goal as a line, the short
    /// weekday under each bar and the day's kcal over it, and the average and the goal in the title bar.
    func drawWeek(_ week: WeekScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let (top, rest) = canvas.bounds.top(layout.bar(layout.title))
        canvas.fill(top, Color.black.opacity(0.55))
        let (left, right) = top.inset(m / 2).left(top.width * 0.5)
        canvas.text(words("week.title"), in: left, font: layout.title, verticallyCentered: true, shrinkToFit: true)
        // The average and the goal, beside the title: the line across the bars carries no label of its own
        // to cover a bar's number.
        let said =
            (week.average.map { [words("week.average", ["kcal": words.kcal($0)])] } ?? [])
            + (week.goals.calories > 0 ? [words("week.goal", ["kcal": words.kcal(week.goals.calories)])] : [])
        canvas.text(
            said.joined(separator: " · "), in: right, font: layout.small, color: .muted, alignment: .trailing,
            maxLines: 2, verticallyCentered: true, shrinkToFit: true)
        let (body, _) = rest.bottom(layout.bar(layout.small))
        let area = body.inset(m)
        let label = layout.bar(layout.small)
        let plot = Rect(x: area.x, y: area.y + label, width: area.width, height: area.height - 2 * label)
        let highest = max(
            Double(week.goals.calories) * 1.15, Double(week.days.compactMap { $0.totals?.calories }.max() ?? 0) * 1.05,
            100)
        let slot = plot.width / Double(max(1, week.days.count))
        for (index, day) in week.days.enumerated() {
            let x = plot.x + slot * Double(index)
            let column = Rect(x: x + slot * 0.15, y: plot.y, width: slot * 0.7, height: plot.height)
            if let totals = day.totals {
                let height = plot.height * Double(totals.calories) / highest
                let bar = Rect(x: column.x, y: plot.maxY - height, width: column.width, height: height)
                let over = week.goals.calories > 0 && totals.calories > week.goals.calories
                canvas.fill(bar, over ? Color.warn : Color.accent, radius: min(column.width * 0.15, m / 3))
                canvas.text(
                    words.integer(totals.calories),
                    in: Rect(x: x, y: bar.y - label, width: slot, height: label), font: layout.small,
                    alignment: .center, verticallyCentered: true, shrinkToFit: true)
            } else {
                canvas.stroke(
                    Rect(x: column.x, y: plot.maxY - m / 2, width: column.width, height: m / 2),
                    Color.white.opacity(0.3),
                    lineWidth: 1)
            }
            canvas.text(
                words.shortWeekday(day.day.weekday), in: Rect(x: x, y: plot.maxY, width: slot, height: label),
                font: layout.small, color: index == week.days.count - 1 ? .white : .muted, alignment: .center,
                verticallyCentered: true, shrinkToFit: true)
        }
        if week.average == nil {
            // A station that logged nothing this week says so, rather than showing seven empty slots.
            canvas.text(
                words("week.empty"), in: plot, font: layout.body, color: .muted, alignment: .center, maxLines: 2,
                verticallyCentered: true, shrinkToFit: true)
        }
        if week.goals.calories > 0 {
            let y = plot.maxY - plot.height * Double(week.goals.calories) / highest
            canvas.line([(plot.x, y), (plot.maxX, y)], Color.white.opacity(0.8), lineWidth: max(1.5, m / 8))
        }
        hint(words("week.hint"), canvas, layout)
    }
}
