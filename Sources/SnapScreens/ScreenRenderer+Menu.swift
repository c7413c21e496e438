import SnapCore
import SnapText

extension ScreenRenderer {
    /// The settings menu: one row per setting, the chosen one lit, its value on the right.
    func drawMenu(_ menu: MenuScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let (top, _) = canvas.bounds.top(layout.bar(layout.title))
        canvas.text(
            words("menu.title"), in: top.inset(m / 2), font: layout.title, verticallyCentered: true, shrinkToFit: true)
        let rowHeight = layout.bar(layout.headline)
        let width = min(canvas.bounds.width - 2 * m, layout.short * 1.4)
        var y = top.maxY + m
        for (index, entry) in menu.entries.enumerated() {
            let row = Rect(x: canvas.bounds.midX - width / 2, y: y, width: width, height: rowHeight)
            let chosen = index == menu.selected
            canvas.fill(row, chosen ? Color.accent : Color.white.opacity(0.08), radius: layout.radius)
            let inner = row.inset(m / 2)
            let (left, right) = inner.left(inner.width * 0.45)
            let (name, value) =
                switch entry {
                case .camera(let camera): (words("menu.camera"), camera)
                case .flash(let on): (words("menu.flash"), words(on ? "menu.on" : "menu.off"))
                }
            canvas.text(
                name, in: left, font: layout.body, color: chosen ? .ink : .muted, verticallyCentered: true,
                shrinkToFit: true)
            canvas.text(
                value, in: right, font: layout.bodyBold, color: chosen ? .ink : .white, alignment: .trailing,
                verticallyCentered: true, shrinkToFit: true)
            y += rowHeight + m / 2
        }
        hint(words("menu.hint"), canvas, layout)
    }

    /// The cameras to switch between as small icons at the right, their top at `y`, the one in use lit,
    /// and a crossed flash where the owner turned the flash off.
    func drawCameraIcons(_ ready: ReadyScreen, at y: Double, _ canvas: Canvas, _ layout: ScreenLayout) {
        let side = layout.bar(layout.small)
        let gap = side * 0.35
        var x = canvas.bounds.maxX - layout.margin - side
        if ready.flashOff {
            let box = Rect(x: x, y: y, width: side, height: side)
            canvas.fill(box, Color.black.opacity(0.55), radius: side * 0.25)
            let bolt: [(Double, Double)] = [
                (box.x + side * 0.58, box.y + side * 0.16), (box.x + side * 0.36, box.y + side * 0.52),
                (box.x + side * 0.62, box.y + side * 0.48), (box.x + side * 0.42, box.y + side * 0.84),
            ]
            canvas.line(bolt, .muted, lineWidth: side * 0.08)
            canvas.line(
                [(box.x + side * 0.2, box.y + side * 0.8), (box.x + side * 0.8, box.y + side * 0.2)], .warn,
                lineWidth: side * 0.1)
            x -= side + gap
        }
        guard ready.cameras.count > 1 else { return }
        for index in ready.cameras.indices.reversed() {
            let box = Rect(x: x, y: y, width: side, height: side)
            let active = index == ready.camera
            canvas.fill(box, active ? Color.accent : Color.black.opacity(0.55), radius: side * 0.25)
            // A camera body with its lens, and its number.
            let body = Rect(x: box.x + side * 0.14, y: box.y + side * 0.24, width: side * 0.72, height: side * 0.54)
            canvas.stroke(body, active ? .ink : .muted, lineWidth: side * 0.07, radius: side * 0.08)
            canvas.text(
                "\(index + 1)", in: body, font: Font(size: side * 0.36, bold: true), color: active ? .ink : .muted,
                alignment: .center, verticallyCentered: true)
            x -= side + gap
        }
    }
}
