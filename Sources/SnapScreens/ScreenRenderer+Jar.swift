import SnapCore
import SnapImaging
import SnapText

/// Where the jar sits on a screen of `bounds`, how thick its walls are, and how big its stickers are.
///
/// Landscape: the jar on the left, the card (totals, or the highlighted sticker) on the right. Portrait:
/// the card on top, the jar under it. The physics (SnapJar) works in the same pixels.
public struct JarLayout: Sendable, Hashable {
    /// The glass, walls included.
    public var glass: Rect
    /// Inside the walls: where the stickers are.
    public var interior: Rect
    public var wall: Double
    /// How much of each bottom corner is cut (the jar's round belly, as two chamfers).
    public var corner: Double
    /// Where the totals or the highlighted sticker's details go.
    public var card: Rect

    public init(bounds: Rect) {
        let layout = ScreenLayout(bounds)
        let m = layout.margin
        let top = layout.bar(layout.title) + (layout.portrait ? layout.bar(layout.small) : 0)
        let bottom = layout.bar(layout.small)
        let body = Rect(x: 0, y: top, width: bounds.width, height: bounds.height - top - bottom).inset(m / 2)
        if layout.portrait {
            let (card, jar) = body.top((body.height * 0.42).rounded())
            self.card = card.inset(m / 4)
            let width = min(jar.width, jar.height * 0.9)
            glass = Rect(x: jar.midX - width / 2, y: jar.y + m / 4, width: width, height: jar.height - m / 4)
        } else {
            let width = min(body.width * 0.5, body.height * 1.05)
            glass = Rect(x: body.x, y: body.y, width: width, height: body.height)
            card = Rect(x: glass.maxX + m, y: body.y, width: body.maxX - glass.maxX - m, height: body.height)
        }
        wall = max(6, (layout.short * 0.022).rounded())
        // The lid takes the glass's top band; the stickers live below it.
        let lid = (glass.height * 0.08).rounded()
        interior = Rect(
            x: glass.x + wall, y: glass.y + lid + wall, width: glass.width - 2 * wall,
            height: glass.height - lid - 2 * wall)
        corner = (interior.width * 0.16).rounded()
    }

    /// The longest side of a sticker when the jar holds `count` of them: together they cover about half
    /// of the inside, within a size that reads on the screen and fits the jar.
    public func stickerSide(count: Int) -> Int {
        let area = interior.width * interior.height * 0.5 / Double(max(count, 5))
        let side = area.squareRoot() * 1.15
        return Int(min(interior.width * 0.42, max(20, side)).rounded())
    }
}

/// The stickers where the physics put them, for one frame of the jar.
public struct JarFrame: @unchecked Sendable {
    public struct Item {
        public var id: PhotoID
        public var sprite: Sprite
        public var x: Double
        public var y: Double
        public var angle: Double

        public init(id: PhotoID, sprite: Sprite, x: Double, y: Double, angle: Double) {
            (self.id, self.sprite, self.x, self.y, self.angle) = (id, sprite, x, y, angle)
        }
    }

    public var items: [Item]

    public init(items: [Item]) {
        self.items = items
    }
}

extension ScreenRenderer {
    /// What must be drawn again to go from the jar's frame `previous` to `next` on a canvas of `bounds`,
    /// the rest of the screen unchanged: around every sticker that moved, came or went, where it was and
    /// where it is now. Empty when nothing moved (nothing to draw). Each sticker's reach is a square that
    /// holds it at any angle, the highlighted one's larger size and ring included, plus a pixel of
    /// antialiasing. Overlapping parts are merged; past `maxParts`, one rectangle holds them all.
    public static func jarDamage(
        from previous: JarFrame, to next: JarFrame, highlighted: PhotoID?, bounds: Rect, maxParts: Int = 12
    ) -> [PixelRegion] {
        let ring = max(3, ScreenLayout(bounds).margin / 5)
        func reach(_ item: JarFrame.Item) -> Rect {
            let (width, height) = (Double(item.sprite.width), Double(item.sprite.height))
            var radius = (width * width + height * height).squareRoot() / 2
            if item.id == highlighted { radius = max(radius * 1.2, max(width, height) * 0.68 + ring / 2) }
            radius += 2
            return Rect(x: item.x - radius, y: item.y - radius, width: 2 * radius, height: 2 * radius)
        }
        let before = Dictionary(previous.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var parts: [Rect] = []
        var seen = Set<PhotoID>()
        for item in next.items {
            seen.insert(item.id)
            guard let old = before[item.id] else {
                parts.append(reach(item))
                continue
            }
            // Any change at all: a sticker creeping a hundredth of a pixel a frame would otherwise drift
            // across the screen with its old picture left where it was. A sleeping body does not move.
            if old.x != item.x || old.y != item.y || old.angle != item.angle || old.sprite !== item.sprite {
                parts.append(reach(old).union(reach(item)))
            }
        }
        for old in previous.items where !seen.contains(old.id) { parts.append(reach(old)) }
        var regions = merged(parts.compactMap { $0.pixels(inside: bounds) })
        if regions.count > maxParts { regions = [regions.dropFirst().reduce(regions[0]) { $0.union($1) }] }
        return regions
    }

    /// The regions with every pair that overlaps replaced by one rectangle holding both, until none do.
    static func merged(_ regions: [PixelRegion]) -> [PixelRegion] {
        var result: [PixelRegion] = []
        for region in regions {
            var current = region
            var index = 0
            while index < result.count {
                let other = result[index]
                if current.x < other.x + other.width && other.x < current.x + current.width
                    && current.y < other.y + other.height && other.y < current.y + current.height
                {
                    current = current.union(other)
                    result.remove(at: index)
                    index = 0
                } else {
                    index += 1
                }
            }
            result.append(current)
        }
        return result
    }

    /// The jar with its stickers (where `frame` puts them; without a frame, the jar alone), and the card:
    /// the highlighted sticker's title, fun fact and macros, or the jar's totals.
    func drawJar(_ ready: ReadyScreen, _ jar: JarContents, frame: JarFrame?, _ canvas: Canvas, _ layout: ScreenLayout) {
        let geometry = JarLayout(bounds: canvas.bounds)
        drawGlass(geometry, front: false, canvas)
        let highlighted = jar.highlighted.map { jar.stickers[$0].id }
        // Each sticker marked with its person's colour, where more than one person shares the station.
        let colours = Dictionary(
            jar.stickers.compactMap { sticker in sticker.person.map { (sticker.id, Color(rgb: $0.colour.rgb)) } },
            uniquingKeysWith: { first, _ in first })
        for item in frame?.items ?? [] where item.id != highlighted {
            canvas.draw(item.sprite, centerX: item.x, centerY: item.y, angle: item.angle)
            if let colour = colours[item.id] { personMark(colour, on: item, scale: 1, canvas) }
        }
        if let item = frame?.items.first(where: { $0.id == highlighted }) {
            // The highlighted sticker on top, a little larger, on a ring of the accent colour.
            let radius = Double(max(item.sprite.width, item.sprite.height)) * 0.68
            canvas.arc(
                centerX: item.x, centerY: item.y, radius: radius, from: 0, to: 2 * .pi, .accent,
                lineWidth: max(3, layout.margin / 5))
            canvas.draw(item.sprite, centerX: item.x, centerY: item.y, angle: item.angle, scale: 1.2)
            if let colour = colours[item.id] { personMark(colour, on: item, scale: 1.2, canvas) }
        }
        drawGlass(geometry, front: true, canvas)
        // The card's texts are the frame's dearest part: a partial redraw of the stickers skips them.
        if canvas.touches(geometry.card.inset(-layout.margin)) {
            drawJarCard(ready, jar, in: geometry.card, canvas, layout)
        }
    }

    /// A dot in the person's colour on the sticker's lower right, ringed in white to stand out on any
    /// food; upright, whatever the sticker's angle, and inside the square the sticker's redraw covers.
    private func personMark(_ colour: Color, on item: JarFrame.Item, scale: Double, _ canvas: Canvas) {
        let side = Double(max(item.sprite.width, item.sprite.height)) * scale
        let radius = max(3, side * 0.11)
        let (x, y) = (item.x + side * 0.28, item.y + side * 0.28)
        let ring = Rect(x: x - radius * 1.3, y: y - radius * 1.3, width: radius * 2.6, height: radius * 2.6)
        canvas.fill(ring, .white, radius: radius * 1.3)
        canvas.fill(Rect(x: x - radius, y: y - radius, width: radius * 2, height: radius * 2), colour, radius: radius)
    }

    private func drawGlass(_ geometry: JarLayout, front: Bool, _ canvas: Canvas) {
        let g = geometry.glass
        let lid = geometry.interior.y - geometry.wall - g.y
        let c = geometry.corner + geometry.wall
        let outline = [
            (g.x, g.y + lid), (g.x, g.maxY - c), (g.x + c, g.maxY), (g.maxX - c, g.maxY), (g.maxX, g.maxY - c),
            (g.maxX, g.y + lid),
        ]
        if !front {
            canvas.polygon(outline, fill: Color.white.opacity(0.07))
            return
        }
        canvas.polygon(outline, stroke: Color.white.opacity(0.55), lineWidth: geometry.wall * 0.6)
        // A highlight down the left side of the glass, and the lid.
        canvas.line(
            [
                (g.x + geometry.wall * 1.6, g.y + lid + geometry.wall * 2),
                (g.x + geometry.wall * 1.6, g.maxY - c * 1.2),
            ],
            Color.white.opacity(0.18), lineWidth: geometry.wall * 0.8)
        canvas.fill(
            Rect(x: g.x - geometry.wall * 0.6, y: g.y, width: g.width + geometry.wall * 1.2, height: lid), .accent,
            radius: lid * 0.3)
    }

    private func drawJarCard(
        _ ready: ReadyScreen, _ jar: JarContents, in card: Rect, _ canvas: Canvas, _ layout: ScreenLayout
    ) {
        let m = layout.margin
        canvas.fill(card, Color.black.opacity(0.35), radius: layout.radius)
        let inner = card.inset(m / 2)
        if let index = jar.highlighted {
            let sticker = jar.stickers[index]
            var y = inner.y
            let count = words("jar.position", ["n": String(index + 1), "total": String(jar.stickers.count)])
            y += canvas.text(
                count, in: Rect(x: inner.x, y: y, width: inner.width, height: layout.bar(layout.small)),
                font: layout.small, color: .muted)
            if let person = sticker.person {
                y += personLine(
                    person, hint: false, in: Rect(x: inner.x, y: y, width: inner.width, height: 0), canvas, layout)
            }
            y +=
                canvas.text(
                    sticker.title, in: Rect(x: inner.x, y: y, width: inner.width, height: layout.title.size * 2.6),
                    font: layout.title, maxLines: 2, shrinkToFit: true) + m / 3
            // The kcal chip with the macros beside it, on one row.
            let kcal = chip(
                words.kcal(sticker.totals.calories), at: inner.x, y,
                maxWidth: min(inner.width * 0.38, layout.short * 0.3),
                font: layout.bodyBold, fill: .accent, color: .ink, canvas)
            canvas.text(
                words.macros(sticker.totals),
                in: Rect(x: kcal.maxX + m / 2, y: kcal.y, width: inner.maxX - kcal.maxX - m / 2, height: kcal.height),
                font: layout.small, verticallyCentered: true, shrinkToFit: true)
            y = kcal.maxY + m / 2
            // Meals analysed before the fun fact existed show none, rather than an empty line.
            if let fact = sticker.funFact {
                canvas.text(
                    fact, in: Rect(x: inner.x, y: y, width: inner.width, height: max(0, inner.maxY - y)),
                    font: layout.small, color: .muted, maxLines: 4, shrinkToFit: true)
            }
            return
        }
        var y = inner.y
        if let person = ready.person {
            // Whose day the totals are: the person picked last, while the pick holds.
            y += personLine(
                person, key: "person.day", hint: false, in: Rect(x: inner.x, y: y, width: inner.width, height: 0),
                canvas, layout)
        }
        y +=
            canvas.text(
                words(jar.days == 1 ? "jar.today" : "jar.week", count: jar.stickers.count),
                in: Rect(x: inner.x, y: y, width: inner.width, height: layout.bar(layout.body) * 2),
                font: layout.bodyBold, maxLines: 2) + m / 3
        let kcalRow = Rect(x: inner.x, y: y, width: inner.width, height: layout.bar(layout.body))
        canvas.text(
            words("jar.today_kcal", ["kcal": words.kcal(ready.totals.calories, goal: ready.goals.calories)]),
            in: kcalRow, font: layout.body, color: .accent, verticallyCentered: true, shrinkToFit: true)
        y = kcalRow.maxY
        if ready.goals.calories > 0 {
            let bar = Rect(x: inner.x, y: y, width: inner.width, height: max(4, layout.small.size * 0.45))
            progress(ready.totals.calories, goal: ready.goals.calories, in: bar, canvas)
            y += bar.height + m / 4
        }
        y +=
            canvas.text(
                words.macros(ready.totals, goals: ready.goals),
                in: Rect(x: inner.x, y: y, width: inner.width, height: layout.bar(layout.small)),
                font: layout.small, verticallyCentered: true, shrinkToFit: true) + m / 2
        let help =
            jar.stickers.isEmpty
            ? words("jar.help.empty") : words("jar.help")
        canvas.text(
            help, in: Rect(x: inner.x, y: y, width: inner.width, height: max(0, inner.maxY - y)), font: layout.small,
            color: .muted, maxLines: 3, shrinkToFit: true)
    }
}
