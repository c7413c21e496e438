import SnapCore
import SnapText

extension ScreenRenderer {
    /// The factory reset at the station. The question says what goes and that only the long hold erases;
    /// the bar says a press keeps everything, and how long the question stays. Then "Erasing…" until the
    /// station starts again as new.
    func drawReset(_ reset: ResetScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        canvas.fill(canvas.bounds, .panel)
        var column = canvas.bounds.bottom(layout.bar(layout.small)).0.inset(m)
        guard let secondsLeft = reset.secondsLeft else {
            column.take(column.height * 0.3)
            column.take(
                canvas.text(
                    words("reset.erasing"), in: column, font: layout.headline, alignment: .center, shrinkToFit: true)
                    + m)
            canvas.text(
                words("reset.erasing_text"), in: column, font: layout.body, color: .muted, alignment: .center,
                maxLines: 3)
            return
        }
        column.take(column.height * (layout.portrait ? 0.2 : 0.08))
        column.take(
            canvas.text(
                words("reset.title"), in: column, font: layout.headline, color: .warn, alignment: .center,
                maxLines: 2, shrinkToFit: true) + m)
        column.take(
            canvas.text(
                words("reset.text"), in: column, font: layout.body, alignment: .center, maxLines: 4, shrinkToFit: true)
                + m)
        let (line, _) = column.top(layout.bar(layout.title))
        let box = line.inset(m / 4)
        canvas.fill(box, Color.bad.opacity(0.85), radius: box.height / 2)
        canvas.text(
            words("reset.hold"), in: box.inset(m / 2), font: layout.title, alignment: .center,
            verticallyCentered: true, shrinkToFit: true)
        hint(words("reset.keep", ["seconds": words.integer(secondsLeft)]), canvas, layout)
    }
}
