import SnapCore
import SnapImaging
import SnapText

extension ScreenRenderer {
    func drawReady(
        _ ready: ReadyScreen, preview: LivePreview?, jar frame: JarFrame?, _ canvas: Canvas, _ layout: ScreenLayout
    ) {
        if let jar = ready.jar {
            canvas.fill(canvas.bounds, .ink)
            drawJar(ready, jar, frame: frame, canvas, layout)
        } else {
            background(preview, canvas)
        }
        let m = layout.margin
        let titleBar = layout.bar(layout.title)
        let statusBar = layout.portrait ? layout.bar(layout.small) : 0
        let (top, _) = canvas.bounds.top(titleBar + statusBar)
        if canvas.touches(top) { drawReadyTitle(ready, top, canvas, layout) }
        // Portrait: at the right of the status row, whose text is on the left. Landscape: over the preview
        // under the title bar, or with the jar (whose card takes that corner) above the hint.
        let iconSide = layout.bar(layout.small)
        let iconsAt =
            layout.portrait
            ? titleBar + max(0, (statusBar - iconSide) / 2)
            : ready.jar == nil ? top.maxY + m / 2 : canvas.bounds.maxY - layout.bar(layout.small) - iconSide - m
        if canvas.touches(Rect(x: 0, y: iconsAt - m, width: canvas.bounds.width, height: iconSide + 2 * m)) {
            drawCameraIcons(ready, at: iconsAt, canvas, layout)
        }
        var noticeAt = top.maxY + m / 2
        // Landscape over the preview: the chips share the icons' row, so they stop short of the icons.
        let iconCount = (ready.flashOff ? 1 : 0) + (ready.cameras.count > 1 ? ready.cameras.count : 0)
        let iconsWidth = layout.portrait || ready.jar != nil ? 0 : Double(iconCount) * iconSide * 1.35
        let chipWidth = canvas.bounds.width - 2 * m - iconsWidth
        if let notice = words.deviceNotice(ready.missingDevices) {
            noticeAt =
                chip(
                    notice, at: m, noticeAt, maxWidth: chipWidth, font: layout.small,
                    fill: Color.warn.opacity(0.9), color: .ink, canvas
                ).maxY + m / 2
        }
        if ready.pairingHint {
            // A new station: how its owner reaches the page, until a phone is paired.
            noticeAt =
                chip(
                    words("ready.pairing_hint"), at: m, noticeAt, maxWidth: chipWidth, font: layout.small,
                    fill: Color.panel.opacity(0.9), color: .white, canvas
                ).maxY + m / 2
        }
        if let update = ready.update {
            let failed = if case .rolledBack = update { true } else { false }
            noticeAt =
                chip(
                    words.updateNote(update), at: m, noticeAt, maxWidth: chipWidth, font: layout.small,
                    fill: (failed ? Color.warn : Color.panel).opacity(0.9), color: failed ? .ink : .white, canvas
                ).maxY + m / 2
        }
        if let backup = ready.backup {
            chip(
                words.backupNote(backup), at: m, noticeAt, maxWidth: chipWidth, font: layout.small,
                fill: Color.panel.opacity(0.9), color: .white, canvas)
        }

        let hintBar = layout.bar(layout.small)
        if ready.mode == .meal && ready.jar == nil {
            let panelHeight = (layout.short * 0.30).rounded()
            let panel = Rect(
                x: 0, y: canvas.bounds.height - hintBar - panelHeight, width: canvas.bounds.width, height: panelHeight)
            canvas.fill(panel, Color.black.opacity(0.55))
            let (line, strip) = panel.inset(m / 2).top(layout.bar(layout.small))
            let totals = words(
                "ready.today",
                [
                    "kcal": words.kcal(ready.totals.calories, goal: ready.goals.calories),
                    "macros": words.macros(ready.totals, goals: ready.goals),
                ])
            canvas.text(totals, in: line, font: layout.small, verticallyCentered: true, shrinkToFit: true)
            // The day against the kcal goal: a bar along the panel's top edge.
            progress(
                ready.totals.calories, goal: ready.goals.calories,
                in: Rect(x: panel.x, y: panel.y, width: panel.width, height: max(3, m / 4)), canvas)
            drawThumbnails(ready.mealThumbnails, in: strip, canvas, layout)
        }
        let action = words(ready.mode == .meal ? "ready.hint.meal" : "ready.hint.group")
        let other =
            ready.groupName == nil
            ? "" : " · " + words(ready.mode == .meal ? "ready.hint.to_group" : "ready.hint.to_meal")
        // The hint shrinks to fit; on narrow panels the shorter words keep it readable.
        if canvas.touches(canvas.bounds.bottom(hintBar).1) { hint(action + other, canvas, layout) }
    }

    /// The ready screen's title bar: the mode and what is left today.
    private func drawReadyTitle(_ ready: ReadyScreen, _ top: Rect, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let titleBar = layout.bar(layout.title)
        canvas.fill(top, Color.black.opacity(0.55))
        let status: (String, Color) =
            switch ready.mode {
            case .group:
                ready.groupPhotoAvailable ? (words("ready.photo_open"), .good) : (words("ready.photo_sent"), .muted)
            case .meal:
                (words("ready.analyses_left", count: ready.analysesLeft), ready.analysesLeft > 0 ? .good : .warn)
            }
        let title = words.modeTitle(ready.mode, group: ready.groupName)
        if layout.portrait {
            let (titleRow, statusRow) = top.top(titleBar)
            canvas.text(
                title, in: titleRow.inset(m / 2), font: layout.title, verticallyCentered: true, shrinkToFit: true)
            canvas.text(
                status.0, in: statusRow.inset(m / 4), font: layout.small, color: status.1, verticallyCentered: true,
                shrinkToFit: true)
        } else {
            let (left, right) = top.inset(m / 2).left(top.width * 0.55)
            canvas.text(title, in: left, font: layout.title, verticallyCentered: true, shrinkToFit: true)
            canvas.text(
                status.0, in: right, font: layout.small, color: status.1, alignment: .trailing,
                verticallyCentered: true,
                shrinkToFit: true)
        }
    }

    private func drawThumbnails(_ paths: [String], in strip: Rect, _ canvas: Canvas, _ layout: ScreenLayout) {
        guard !paths.isEmpty else {
            canvas.text(words("ready.no_meals"), in: strip, font: layout.small, color: .muted, verticallyCentered: true)
            return
        }
        let side = strip.height - layout.margin / 4
        let gap = layout.margin / 3
        let fitting = max(1, Int((strip.width + gap) / (side + gap)))
        // The newest meals are the ones worth seeing when they do not all fit.
        for (index, path) in paths.suffix(fitting).enumerated() {
            let rect = Rect(x: strip.x + Double(index) * (side + gap), y: strip.maxY - side, width: side, height: side)
            photo(path, in: rect, cover: true, canvas)
            canvas.stroke(rect, Color.white.opacity(0.8), lineWidth: max(1, side * 0.02))
        }
    }

    func drawCountdown(_ countdown: CountdownScreen, preview: LivePreview?, _ canvas: Canvas, _ layout: ScreenLayout) {
        background(preview, canvas)
        let bounds = canvas.bounds
        let radius = layout.short * 0.3
        canvas.arc(
            centerX: bounds.midX, centerY: bounds.midY, radius: radius * 0.5, from: 0, to: 2 * .pi,
            Color.black.opacity(0.45), lineWidth: radius)
        canvas.arc(
            centerX: bounds.midX, centerY: bounds.midY, radius: radius, from: 0, to: 2 * .pi, .accent,
            lineWidth: layout.short * 0.02)
        let box = Rect(x: bounds.midX - radius, y: bounds.midY - radius, width: 2 * radius, height: 2 * radius)
        canvas.text(
            "\(countdown.secondsLeft)", in: box, font: layout.huge, alignment: .center, verticallyCentered: true)
        if let person = countdown.person {
            // On a dark band at the top, over the preview.
            let band = Rect(
                x: 0, y: 0, width: bounds.width,
                height: layout.bar(layout.bodyBold) * 0.8 + layout.bar(layout.small) * 0.7 + layout.margin)
            canvas.fill(band, Color.black.opacity(0.6))
            personLine(person, in: band.inset(layout.margin / 2), canvas, layout)
        }
        hint(words("hint.hold_cancel"), canvas, layout)
    }

    func drawCapturing(_ canvas: Canvas, _ layout: ScreenLayout) {
        // A white screen adds light at the moment of the shot.
        canvas.fill(canvas.bounds, .white)
        canvas.text(
            words("capturing.hold_still"), in: canvas.bounds.inset(layout.margin), font: layout.headline, color: .ink,
            alignment: .center, verticallyCentered: true)
    }

    func drawProcessing(_ processing: ProcessingScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        background(images.capture(processing.photo), canvas, dim: 0.55)
        let bounds = canvas.bounds
        let radius = layout.short * 0.11
        spinner(centerX: bounds.midX, centerY: bounds.midY - radius * 0.6, radius: radius, canvas)
        let label = words(processing.stage == .analysing ? "processing.analysing" : "processing.processing")
        let line = Rect(
            x: layout.margin, y: bounds.midY + radius * 0.8, width: bounds.width - 2 * layout.margin,
            height: layout.bar(layout.title))
        canvas.text(
            label, in: line, font: layout.title, alignment: .center, verticallyCentered: true, shrinkToFit: true)
        hint(words("hint.hold_cancel"), canvas, layout)
    }
}
