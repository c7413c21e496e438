import SnapCore
import SnapText

extension ScreenRenderer {
    func drawLock(_ lock: LockScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        var column = canvas.bounds.bottom(layout.bar(layout.small)).0.inset(m)
        if let slide = lock.slide {
            // The group's photos behind the lock, dimmed so the words stay readable.
            photo(slide.photo.path, in: canvas.bounds, cover: true, canvas)
            canvas.fill(canvas.bounds, Color.black.opacity(0.62))
            column = column.bottom(caption(slide, canvas, layout, above: layout.bar(layout.small))).0
        }
        let label =
            lock.reason == .aiLimit
            ? words.modeTitle(.meal, group: nil) : words.modeTitle(.group, group: lockGroup(lock))
        column.take(canvas.text(label, in: column, font: layout.small, color: .muted, alignment: .center) + m / 2)
        column.take(
            canvas.text(
                words.lockTitle(lock), in: column, font: layout.title, alignment: .center, maxLines: 3,
                shrinkToFit: true) + m)
        if let day = lock.day {
            // Meal mode's day, as it ended: the kcal against the goal with its bar, the macros under it.
            column.take(
                canvas.text(
                    words("lock.day", ["kcal": words.kcal(day.totals.calories, goal: day.goals.calories)]),
                    in: column, font: layout.body, alignment: .center, shrinkToFit: true) + m / 4)
            if day.goals.calories > 0 {
                let width = min(column.width, layout.short)
                let bar = Rect(
                    x: column.midX - width / 2, y: column.y, width: width, height: max(4, layout.small.size * 0.45))
                progress(day.totals.calories, goal: day.goals.calories, in: bar, canvas)
                column.take(bar.height + m / 4)
            }
            column.take(
                canvas.text(
                    words.macros(day.totals, goals: day.goals), in: column, font: layout.small, color: .muted,
                    alignment: .center, shrinkToFit: true) + m / 2)
        }
        if let remaining = lock.remaining {
            column.take(
                canvas.text(
                    words(lock.reason == .aiLimit ? "lock.next_analysis" : "lock.next_photo"), in: column,
                    font: layout.body,
                    color: .muted, alignment: .center) + m / 4)
            canvas.text(
                Words.clock(remaining), in: column, font: Font(size: layout.short * 0.19, bold: true),
                color: .accent,
                alignment: .center, shrinkToFit: true)
        } else {
            canvas.text(
                words.lockCountdown(lock), in: column, font: layout.body, color: .accent, alignment: .center,
                maxLines: 3)
        }
        let next = (lock.slide?.count ?? 0) > 1 ? words("lock.hint.next_photo") + " · " : ""
        hint(next + words(lock.reason == .aiLimit ? "lock.hint.to_group" : "lock.hint.switch"), canvas, layout)
    }

    /// The idle screen: the group's slideshow, or a dimmed clock.
    func drawIdle(_ idle: IdleScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        if idle.displayOff {
            canvas.fill(canvas.bounds, .black)
            return
        }
        guard let slide = idle.slide else {
            canvas.fill(canvas.bounds, .black)
            canvas.text(
                idle.clock, in: canvas.bounds, font: Font(size: layout.short * 0.28, bold: true),
                color: Color.muted.opacity(0.5), alignment: .center, verticallyCentered: true, shrinkToFit: true)
            hint(words("idle.hint"), canvas, layout)
            return
        }
        photo(slide.photo.path, in: canvas.bounds, cover: true, canvas)
        let (band, _) = canvas.bounds.top(layout.bar(layout.small))
        canvas.fill(band, Color.black.opacity(0.5))
        canvas.text(
            words.modeTitle(.group, group: idle.group), in: band.inset(layout.margin / 2), font: layout.small,
            color: .muted, verticallyCentered: true, shrinkToFit: true)
        _ = caption(slide, canvas, layout, above: layout.bar(layout.small))
        hint(words("idle.hint"), canvas, layout)
    }

    /// Who shared the slide and when, in a band above the bottom `above` points; returns the band's height.
    private func caption(_ slide: Slide, _ canvas: Canvas, _ layout: ScreenLayout, above: Double) -> Double {
        let height = layout.bar(layout.body)
        let band = Rect(x: 0, y: canvas.bounds.maxY - above - height, width: canvas.bounds.width, height: height)
        canvas.fill(band, Color.black.opacity(0.55))
        let caption = words.slideCaption(slide)
        let inner = band.inset(layout.margin / 2)
        canvas.text(caption.who, in: inner, font: layout.body, verticallyCentered: true, shrinkToFit: true)
        if let place = caption.place {
            canvas.text(
                place, in: inner, font: layout.small, color: .muted, alignment: .trailing, verticallyCentered: true)
        }
        return height
    }

    private func lockGroup(_ lock: LockScreen) -> String {
        if case .group(let name) = lock.reason { return name }
        return ""
    }

    func drawRetake(_ retake: RetakeScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let text = words.retake(retake.photo.quality, mode: retake.mode)
        photo(retake.photo.photoPath, in: canvas.bounds, cover: true, canvas)
        canvas.fill(canvas.bounds, Color.black.opacity(0.45))
        let (band, rest) = canvas.bounds.top(layout.bar(layout.title) * 1.6)
        canvas.fill(band, .warn)
        canvas.text(
            text.title, in: band.inset(m / 2), font: layout.title, color: .ink, alignment: .center, maxLines: 2,
            verticallyCentered: true, shrinkToFit: true)
        let detail = rest.bottom(layout.bar(layout.small)).0.inset(m)
        canvas.fill(detail.top(layout.bar(layout.body) * 2.2).0, Color.black.opacity(0.55), radius: layout.radius)
        canvas.text(
            text.detail, in: detail.top(layout.bar(layout.body) * 2.2).0.inset(m / 3), font: layout.body,
            alignment: .center, maxLines: 2, verticallyCentered: true, shrinkToFit: true)
        hint(words("retake.hint"), canvas, layout)
    }

    func drawProblem(_ problem: ProblemScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let text = words.problem(problem.kind)
        let tone: Color =
            switch problem.kind {
            case .networkDown, .analysisQueued, .signInFailed: .warn
            default: .bad
            }
        let (band, rest) = canvas.bounds.top(layout.bar(layout.title) * 1.6)
        canvas.fill(band, tone)
        canvas.text(
            text.title, in: band.inset(m / 2), font: layout.title, color: .ink, alignment: .center, maxLines: 2,
            verticallyCentered: true, shrinkToFit: true)
        var column = rest.bottom(layout.bar(layout.small)).0.inset(m)
        column.take(
            canvas.text(text.detail, in: column, font: layout.body, alignment: .center, maxLines: 4, shrinkToFit: true)
                + m)
        if let photo = problem.photo, column.height > layout.short * 0.2 {
            self.photo(photo.thumbnailPath, in: column, cover: false, canvas)
        }
        hint(text.hint, canvas, layout)
    }
}
