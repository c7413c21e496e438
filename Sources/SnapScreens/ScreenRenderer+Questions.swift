import SnapCore
import SnapText

extension ScreenRenderer {
    /// A question of the owner's page at the station (the factory reset, a restore). It says what goes and
    /// that only the long hold answers; the bar says a press keeps everything, and how long the question
    /// stays. Then "Erasing…" or "Restoring…" until the station starts again.
    func drawQuestion(_ screen: QuestionScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let words = self.words
        let (title, text, hold, busy, busyText) =
            switch screen.question {
            case .reset:
                (
                    words("reset.title"), words("reset.text"), words("reset.hold"), words("reset.erasing"),
                    words("reset.erasing_text")
                )
            case .restore(_, let created):
                (
                    words("restore.title"),
                    words("restore.text", ["date": created.map(words.day) ?? "?"]), words("restore.hold"),
                    words("restore.restoring"), words("restore.restoring_text")
                )
            }
        canvas.fill(canvas.bounds, .panel)
        var column = canvas.bounds.bottom(layout.bar(layout.small)).0.inset(m)
        guard let secondsLeft = screen.secondsLeft else {
            column.take(column.height * 0.3)
            column.take(canvas.text(busy, in: column, font: layout.headline, alignment: .center, shrinkToFit: true) + m)
            canvas.text(busyText, in: column, font: layout.body, color: .muted, alignment: .center, maxLines: 3)
            return
        }
        column.take(column.height * (layout.portrait ? 0.2 : 0.08))
        column.take(
            canvas.text(
                title, in: column, font: layout.headline, color: .warn, alignment: .center, maxLines: 2,
                shrinkToFit: true) + m)
        column.take(
            canvas.text(text, in: column, font: layout.body, alignment: .center, maxLines: 4, shrinkToFit: true) + m)
        let (line, _) = column.top(layout.bar(layout.title))
        let box = line.inset(m / 4)
        canvas.fill(box, Color.bad.opacity(0.85), radius: box.height / 2)
        canvas.text(
            hold, in: box.inset(m / 2), font: layout.title, alignment: .center, verticallyCentered: true,
            shrinkToFit: true)
        // The same words for both questions: a press keeps everything.
        hint(words("reset.keep", ["seconds": words.integer(secondsLeft)]), canvas, layout)
    }
}
