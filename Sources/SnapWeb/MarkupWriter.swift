/// Markup written into one buffer of bytes as it goes (an SVG, a page's rows): markup as it is, texts
/// escaped, coordinates to a tenth. Bytes, not a `String`: History's two charts and a day's 500 rows are
/// thousands of small appends a request, and each append to a String checks and updates its flags.
struct MarkupWriter {
    private var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// What was written. Every piece came from a `String`, so the bytes are UTF-8 as they are.
    var html: HTML { HTML(trusted: String(decoding: bytes, as: UTF8.self)) }

    mutating func raw(_ markup: String) { bytes += markup.utf8 }

    mutating func text(_ value: String) { HTML.escape(value, into: &bytes) }

    /// `value` to a tenth: "12.5", "-0.5".
    mutating func number(_ value: Double) {
        let tenths = Int((value * 10).rounded())
        if tenths < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(tenths.magnitude / 10)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(tenths.magnitude % 10))
    }

    /// `value` in decimal digits, written in place.
    mutating func integer(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(value.magnitude)
    }

    private mutating func digits(_ value: UInt) {
        if value >= 10 { digits(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    mutating func rect(_ name: String, x: Double, width: Double, from bottom: Double, to top: Double) {
        open("rect", name)
        attribute("x", x)
        attribute("y", top)
        attribute("width", width)
        attribute("height", max(0, bottom - top))
        raw("/>")
    }

    mutating func line(_ name: String, from left: Double, to right: Double, at level: Double) {
        open("line", name)
        attribute("x1", left)
        attribute("x2", right)
        attribute("y1", level)
        attribute("y2", level)
        raw("/>")
    }

    mutating func label(_ name: String, x: Double, y: Double, anchor: String, _ value: String) {
        open("text", name)
        attribute("x", x)
        attribute("y", y)
        raw(" text-anchor=\"")
        raw(anchor)
        raw("\">")
        text(value)
        raw("</text>")
    }

    /// `<tag class="name"`, left open for its attributes.
    private mutating func open(_ tag: String, _ name: String) {
        raw("<")
        raw(tag)
        raw(" class=\"")
        raw(name)
        raw("\"")
    }

    /// ` name="1.0"`.
    private mutating func attribute(_ name: String, _ value: Double) {
        raw(" ")
        raw(name)
        raw("=\"")
        number(value)
        raw("\"")
    }
}
