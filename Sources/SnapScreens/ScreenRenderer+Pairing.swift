import SnapCore
import SnapImaging
import SnapText

extension ScreenRenderer {
    /// The pairing screen: the page's address as a QR code, and the one-time code to type in.
    func drawPairing(_ screen: PairingScreen, _ canvas: Canvas, _ layout: ScreenLayout) {
        let m = layout.margin
        let (body, _) = canvas.bounds.bottom(layout.bar(layout.small))
        // Side by side on a landscape panel; the QR code above the words on a portrait one.
        let square: Rect
        var column: Rect
        if layout.portrait {
            let side = min(body.width - 2 * m, body.height * 0.42)
            square = Rect(x: body.x + (body.width - side) / 2, y: body.y + m, width: side, height: side)
            column = Rect(
                x: body.x + m, y: square.maxY + m, width: body.width - 2 * m, height: body.maxY - square.maxY - 2 * m)
        } else {
            let side = min(body.height - 2 * m, body.width * 0.45)
            square = Rect(x: m, y: body.y + (body.height - side) / 2, width: side, height: side)
            column = Rect(
                x: square.maxX + m, y: body.y + m, width: body.maxX - square.maxX - 2 * m, height: body.height - 2 * m)
        }
        if let pairing = screen.pairing, !pairing.url.isEmpty, let code = QRCode(text: pairing.url) {
            drawQR(code, in: square, canvas)
        } else {
            canvas.fill(square, .panel, radius: m / 2)
        }
        column.take(
            canvas.text(words("pairing.title"), in: column, font: layout.title, maxLines: 2, shrinkToFit: true) + m / 2)
        switch screen.note {
        case .paired(let name):
            column.take(canvas.text(words("pairing.paired"), in: column, font: layout.title, color: .good) + m / 4)
            canvas.text(name, in: column, font: layout.body, color: .muted, maxLines: 2, shrinkToFit: true)
        case .forgotten:
            canvas.text(
                words("pairing.forgotten"), in: column, font: layout.body, color: .warn, maxLines: 3,
                shrinkToFit: true)
        case .none:
            guard let pairing = screen.pairing else {
                canvas.text(words("pairing.making"), in: column, font: layout.body, color: .muted)
                break
            }
            if pairing.url.isEmpty {
                // The server could not listen (its port taken): the code still works once it does.
                column.take(
                    canvas.text(
                        words("pairing.unreachable"), in: column, font: layout.small, color: .warn,
                        maxLines: 2, shrinkToFit: true) + m / 2)
            } else {
                column.take(
                    canvas.text(
                        words("pairing.scan"), in: column, font: layout.small, color: .muted, shrinkToFit: true)
                        + m / 4)
                column.take(
                    canvas.text(
                        pairing.url, in: column, font: layout.small, maxLines: 2, shrinkToFit: true)
                        + (pairing.fallback == nil ? m / 2 : m / 8))
                if let fallback = pairing.fallback {
                    // The address, for a phone that does not resolve .local names.
                    column.take(
                        canvas.text(
                            words("pairing.or", ["address": fallback]), in: column, font: layout.small, color: .muted,
                            maxLines: 2,
                            shrinkToFit: true) + m / 2)
                }
            }
            column.take(canvas.text(words("pairing.type"), in: column, font: layout.small, color: .muted) + m / 4)
            // Read in two halves: "4821 0937".
            let half = pairing.code.count / 2
            let digits =
                pairing.code.count.isMultiple(of: 2)
                ? "\(pairing.code.prefix(half)) \(pairing.code.suffix(half))" : pairing.code
            column.take(
                canvas.text(
                    digits, in: column, font: Font(size: layout.short * 0.14, bold: true), color: .accent,
                    shrinkToFit: true) + m / 4)
            if let remaining = screen.remaining {
                let seconds = Int(remaining.components.seconds)
                column.take(
                    canvas.text(
                        words("pairing.valid", ["time": Words.clock(minutes: seconds / 60, seconds: seconds % 60)]),
                        in: column,
                        font: layout.small, color: .muted, shrinkToFit: true) + m / 4)
            }
            if let fingerprint = pairing.fingerprint {
                // What the browser's warning names: its certificate's SHA-256 begins so.
                canvas.text(
                    words("pairing.certificate", ["fingerprint": String(fingerprint.prefix(23))]), in: column,
                    font: layout.small, color: .muted,
                    maxLines: 2, shrinkToFit: true)
            }
        }
        hint(words("pairing.hint"), canvas, layout)
    }

    /// The code's modules in `rect`, on white with the quiet zone the standard asks for (4 modules), each
    /// module a whole number of pixels on whole pixel edges: no blurred seams for a camera to misread.
    private func drawQR(_ code: QRCode, in rect: Rect, _ canvas: Canvas) {
        canvas.fill(rect, .white)
        let module = max(1, (rect.width / Double(code.size + 8)).rounded(.down))
        let side = module * Double(code.size)
        let origin = (x: (rect.x + (rect.width - side) / 2).rounded(), y: (rect.y + (rect.height - side) / 2).rounded())
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) {
                canvas.fill(
                    Rect(
                        x: origin.x + Double(x) * module, y: origin.y + Double(y) * module, width: module,
                        height: module),
                    .black)
            }
        }
    }
}
