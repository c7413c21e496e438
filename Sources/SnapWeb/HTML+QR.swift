import SnapImaging

extension HTML {
    /// `text` as an SVG QR code (an invite code, the page's pairing address): one path of dark modules, four
    /// modules of quiet zone; `label` names it for a screen reader.
    static func qrCode(_ text: String, label: String) -> HTML {
        guard let code = QRCode(text: text) else { return "" }
        var path = ""
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        let side = code.size + 8
        return HTML(
            trusted: """
                <svg class="qr" role="img" aria-label="\(HTML.escaped(label))" viewBox="0 0 \(side) \(side)" width="200" height="200">\
                <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
                """)
    }
}
