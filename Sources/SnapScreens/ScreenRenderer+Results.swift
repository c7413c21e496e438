import SnapCore
import SnapText

extension ScreenRenderer {
    func drawMealResult(_ result: MealResultScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let (content, _) = canvas.bounds.bottom(layout.bar(layout.small))
        let photoRect: Rect
        var sheet: Rect
        if layout.portrait {
            let (top, rest) = content.top(content.height * 0.36)
            photoRect = top
            sheet = rest.inset(m)
        } else {
            let side = min(content.height, content.width * 0.42)
            let (left, rest) = content.left(side)
            photoRect = Rect(x: left.x, y: left.midY - side / 2, width: side, height: side)
            sheet = rest.inset(m)
        }
        // The sticker, when there is one, stands on a quiet panel; otherwise the photo fills its square.
        if let sticker = result.photo.stickerPath {
            canvas.fill(photoRect, .panel)
            if !canvas.drawPNG(atPath: sticker, in: photoRect.inset(m / 2)) {
                photo(result.photo.photoPath, in: photoRect, cover: true, canvas)
            }
        } else {
            photo(result.photo.photoPath, in: photoRect, cover: true, canvas)
        }

        if let person = result.person { sheet.take(personLine(person, in: sheet, canvas, layout) + m / 3) }
        let analysis = result.analysis
        let titleBox = sheet.top(layout.title.size * 2.6).0
        sheet.take(
            canvas.text(analysis.title, in: titleBox, font: layout.title, maxLines: 2, shrinkToFit: true) + m / 3)
        sheet.take(
            canvas.text(words.kcal(analysis.totals.calories), in: sheet, font: layout.headline, color: .accent) + m / 4)
        sheet.take(canvas.text(words.macros(analysis.totals), in: sheet, font: layout.bodyBold) + m / 2)

        let row = layout.bar(layout.small) * 0.85
        for (index, item) in analysis.items.enumerated() {
            let clashes = index < result.clashes.count ? result.clashes[index] : []
            // A flagged item takes two lines: what it is, then what it clashes with, both in full.
            let needed = row * (clashes.isEmpty ? 1 : 2)
            let remaining = analysis.items.count - index
            guard sheet.height >= needed + (remaining > 1 ? row : 0) else {
                canvas.text(words("result.more", count: remaining), in: sheet, font: layout.small, color: .muted)
                break
            }
            let box = sheet.top(needed).0
            let line = words(
                "result.item",
                ["name": item.name, "grams": words.integer(item.grams), "kcal": words.kcal(item.macros.calories)])
            if clashes.isEmpty {
                canvas.text(line, in: box, font: layout.small, verticallyCentered: true, shrinkToFit: true)
            } else {
                canvas.fill(box, Color.bad.opacity(0.22), radius: row * 0.2)
                let inner = Rect(x: box.x + row * 0.2, y: box.y, width: box.width - row * 0.4, height: box.height)
                let (first, second) = inner.top(row)
                canvas.text(line, in: first, font: layout.small, verticallyCentered: true, shrinkToFit: true)
                let flag =
                    "⚠ " + clashes.map { words("result.clash", ["diet": words.dietary($0)]) }.joined(separator: ", ")
                canvas.text(
                    flag, in: second, font: layout.small, color: Color(1, 0.72, 0.68), verticallyCentered: true,
                    shrinkToFit: true)
            }
            sheet.take(needed + row * 0.15)
        }
        hint(words("result.hint", ["seconds": String(result.autoSaveIn)]), canvas, layout)
    }

    /// Whose meal it is: a dot in their colour and "For Anna" in white (some colours are too dark to read
    /// on the panel), and under it how to pick someone else.
    /// Returns the height it took from the top of `box`.
    @discardableResult
    func personLine(
        _ person: Person, key: String = "person.for", hint: Bool = true, in box: Rect, _ canvas: Canvas,
        _ layout: ScreenLayout
    ) -> Double {
        let line = layout.bar(layout.bodyBold) * 0.8
        let colour = Color(rgb: person.colour.rgb)
        let dot = line * 0.55
        canvas.fill(Rect(x: box.x, y: box.y + (line - dot) / 2, width: dot, height: dot), colour, radius: dot / 2)
        let text = Rect(x: box.x + dot * 1.6, y: box.y, width: box.width - dot * 1.6, height: line)
        canvas.text(
            words(key, ["name": words.person(person)]), in: text, font: layout.bodyBold, color: .white,
            verticallyCentered: true, shrinkToFit: true)
        guard hint else { return line }
        let hintLine = Rect(x: text.x, y: box.y + line, width: text.width, height: layout.bar(layout.small) * 0.7)
        canvas.text(
            words("person.next_hint"), in: hintLine, font: layout.small, color: .muted, verticallyCentered: true,
            shrinkToFit: true)
        return line + hintLine.height
    }

    func drawGroupReview(_ review: GroupReviewScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        photo(review.photo.photoPath, in: canvas.bounds, cover: false, canvas)
        let (rest, _) = canvas.bounds.bottom(layout.bar(layout.small))
        let (_, banner) = rest.bottom(layout.bar(layout.headline))
        canvas.fill(banner, Color.black.opacity(0.65))
        canvas.text(
            words("review.sending", ["group": review.group, "seconds": String(review.secondsLeft)]),
            in: banner.inset(layout.margin / 2), font: layout.title, alignment: .center, verticallyCentered: true,
            shrinkToFit: true)
        hint(words("review.hint"), canvas, layout)
    }

    func drawUploading(_ uploading: UploadingScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        photo(uploading.photo.photoPath, in: canvas.bounds, cover: true, canvas)
        canvas.fill(canvas.bounds, Color.black.opacity(0.6))
        let bounds = canvas.bounds
        let width = bounds.width * 0.7
        let barHeight = layout.short * 0.055
        let title = Rect(
            x: layout.margin, y: bounds.midY - layout.bar(layout.title) - barHeight,
            width: bounds.width - 2 * layout.margin, height: layout.bar(layout.title))
        canvas.text(
            words("uploading.title", ["group": uploading.group]), in: title, font: layout.title, alignment: .center,
            verticallyCentered: true, shrinkToFit: true)
        let track = Rect(x: bounds.midX - width / 2, y: bounds.midY - barHeight / 2, width: width, height: barHeight)
        canvas.fill(track, Color.white.opacity(0.25), radius: barHeight / 2)
        if uploading.progress > 0 {
            let done = Rect(
                x: track.x, y: track.y, width: max(barHeight, track.width * uploading.progress), height: barHeight)
            canvas.fill(done, .accent, radius: barHeight / 2)
        }
        let percent = Rect(
            x: track.x, y: track.maxY + layout.margin / 2, width: track.width, height: layout.bar(layout.body))
        canvas.text(
            words.percent(Int((uploading.progress * 100).rounded())), in: percent, font: layout.body, color: .muted,
            alignment: .center)
    }

    func drawSent(group: String, _ canvas: Canvas, _ layout: ScreenLayout) {
        let bounds = canvas.bounds
        let radius = layout.short * 0.16
        let centerY = bounds.midY - radius * 0.5
        canvas.arc(
            centerX: bounds.midX, centerY: centerY, radius: radius, from: 0, to: 2 * .pi, .good,
            lineWidth: radius * 0.16)
        canvas.line(
            [
                (bounds.midX - radius * 0.45, centerY), (bounds.midX - radius * 0.1, centerY + radius * 0.38),
                (bounds.midX + radius * 0.5, centerY - radius * 0.35),
            ],
            .good, lineWidth: radius * 0.18)
        let line = Rect(
            x: layout.margin, y: centerY + radius * 1.35, width: bounds.width - 2 * layout.margin,
            height: layout.bar(layout.headline))
        canvas.text(
            words("sent.title", ["group": group]), in: line, font: layout.headline, alignment: .center,
            verticallyCentered: true, shrinkToFit: true)
    }
}

extension Rect {
    /// Removes `amount` from the top of the rectangle, as text is laid out down a column.
    mutating func take(_ amount: Double) {
        let amount = min(amount, height)
        y += amount
        height -= amount
    }
}
