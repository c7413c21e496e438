/// Sizes derived from the display: everything scales with the short side, so a 480×320 panel and a
/// 1920×1080 monitor show the same screen, and portrait panels stack what landscape ones put side by side.
struct ScreenLayout {
    let bounds: Rect
    let short: Double
    let portrait: Bool

    init(_ bounds: Rect) {
        self.bounds = bounds
        short = min(bounds.width, bounds.height)
        portrait = bounds.height > bounds.width
    }

    var margin: Double { (short * 0.045).rounded() }
    var radius: Double { short * 0.03 }
    var huge: Font { Font(size: short * 0.42, bold: true) }
    var headline: Font { Font(size: short * 0.085, bold: true) }
    var title: Font { Font(size: short * 0.068, bold: true) }
    var body: Font { Font(size: short * 0.052) }
    var bodyBold: Font { Font(size: short * 0.052, bold: true) }
    var small: Font { Font(size: short * 0.044) }

    /// Height of a one-line bar holding `font`.
    func bar(_ font: Font) -> Double { (font.size * 1.9).rounded() }
}
