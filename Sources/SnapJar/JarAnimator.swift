import SnapCore
import SnapImaging
import SnapScreens

/// Keeps the jar's physics in step with what the station shows, and makes each frame of it.
///
/// The display thread owns it: `sync` with the screen's stickers (a new meal's sticker drops in from
/// the top; a deleted one leaves), `advance` the world to now at the fixed step, then draw `frame`.
/// Each sticker is one `Sprite` made once at its size. While the world is awake the display redraws at
/// its rate; once every body sleeps, `isAsleep` says so and nothing is redrawn until something changes.
public final class JarAnimator {
    /// Reads a sticker's picture: the PNG cut-out, or the thumbnail (JPEG) to cut round.
    public struct Pictures: Sendable {
        public var sticker: @Sendable (_ path: String, _ side: Int) -> Sprite?
        public var thumbnail: @Sendable (_ path: String, _ side: Int) -> PixelImage?

        public init(
            sticker: @escaping @Sendable (_ path: String, _ side: Int) -> Sprite?,
            thumbnail: @escaping @Sendable (_ path: String, _ side: Int) -> PixelImage?
        ) {
            self.sticker = sticker
            self.thumbnail = thumbnail
        }

        /// From disk: PNG stickers through cairo, JPEG thumbnails through TurboJPEG.
        public static let disk = Pictures(
            sticker: { path, side in Sprite(png: path, side: side) },
            thumbnail: { path, side in ScreenImages.disk().file(path, side) })
    }

    public private(set) var world: JarWorld?
    private var layout: JarLayout?
    private var side = 0
    private var sprites: [PhotoID: Sprite] = [:]
    private var order: [PhotoID] = []
    /// Stickers waiting to drop: several new ones fall one after another, not into each other.
    private var pending: [JarSticker] = []
    private var stepsSinceDrop = 0
    /// Steps between two drops (a quarter of a second).
    static let dropInterval = 30
    private var clock: ContinuousClock.Instant?
    private var gravity: (x: Double, y: Double) = (0, 1800)
    private let pictures: Pictures
    private let seed: UInt64
    /// Fixed steps taken since the start, for the benchmark and the tests.
    public private(set) var steps = 0

    public init(pictures: Pictures = .disk, seed: UInt64 = 1) {
        self.pictures = pictures
        self.seed = seed
    }

    /// Matches the world to `jar` on a screen of `bounds`: a size or a sticker size that changed builds
    /// the world again with the stickers stacked at the bottom; a new sticker drops from the top.
    public func sync(_ jar: JarContents, bounds: Rect) {
        let layout = JarLayout(bounds: bounds)
        let side = layout.stickerSide(count: jar.stickers.count)
        let ids = jar.stickers.map(\.id)
        if self.layout != layout || abs(side - self.side) > max(2, self.side / 6) || world == nil {
            rebuild(jar, layout: layout, side: side)
            return
        }
        for id in order where !ids.contains(id) {
            world?.remove(id: id.rawValue)
            sprites[id] = nil
        }
        order = order.filter { ids.contains($0) }
        pending = pending.filter { ids.contains($0.id) }
        for sticker in jar.stickers
        where !order.contains(sticker.id) && !pending.contains(where: { $0.id == sticker.id }) {
            pending.append(sticker)
        }
        releaseDrop()
    }

    /// One fixed step, with the next waiting sticker dropped in when its turn has come.
    private func step(_ world: JarWorld) {
        world.step()
        steps += 1
        stepsSinceDrop += 1
        if steps % Self.dropInterval == 0 { world.returnEscaped() }
        releaseDrop()
    }

    private func releaseDrop() {
        guard !pending.isEmpty, stepsSinceDrop >= Self.dropInterval || order.isEmpty && stepsSinceDrop == 0 else {
            return
        }
        add(pending.removeFirst(), drop: true)
        stepsSinceDrop = 0
    }

    /// Steps the world up to `now` at the fixed step (at most `catchUp` of it at once: a display that
    /// was busy does not make the stickers jump); the first call only starts the clock.
    public func advance(to now: ContinuousClock.Instant, catchUp: Duration = .milliseconds(250)) {
        defer { clock = now }
        guard let world, let last = clock else { return }
        let elapsed = min(now - last, catchUp)
        let count = Int(elapsed.seconds / JarWorld.step)
        for _ in 0..<max(0, count) { step(world) }
    }

    /// Steps until every body sleeps, at most `limit` steps: a display that shows no animation (PNG
    /// frames without preview frames) draws the jar settled. Returns the steps taken.
    @discardableResult
    public func settle(limit: Int = 2400) -> Int {
        guard let world else { return 0 }
        var taken = 0
        while !isAsleep && taken < limit {
            step(world)
            taken += 1
        }
        return taken
    }

    /// Stops the clock while the jar is not shown: it does not fall on when it comes back.
    public func pause() { clock = nil }

    /// Every sticker sleeps and none waits to drop.
    public var isAsleep: Bool { pending.isEmpty && (world?.isAsleep ?? true) }

    /// The stickers where the world has them now.
    public var frame: JarFrame {
        JarFrame(
            items: (world?.placements ?? []).compactMap { placement in
                let id = PhotoID(placement.id)
                guard let sprite = sprites[id] else { return nil }
                return JarFrame.Item(id: id, sprite: sprite, x: placement.x, y: placement.y, angle: placement.angle)
            })
    }

    /// Gravity along the station's tilt (a unit vector on the display, y down).
    public func tilt(x: Double, y: Double) {
        let length = max(0.001, (x * x + y * y).squareRoot())
        gravity = (1800 * x / length, 1800 * y / length)
        world?.setGravity(x: gravity.x, y: gravity.y)
    }

    public func shake() { world?.shake() }

    private func rebuild(_ jar: JarContents, layout: JarLayout, side: Int) {
        let known = Set(order)
        let interior = JarWorld.Interior(
            x: layout.interior.x, y: layout.interior.y, width: layout.interior.width, height: layout.interior.height,
            corner: layout.corner, wall: layout.wall)
        let world = JarWorld(interior: interior, gravity: gravity, seed: seed)
        self.world = world
        self.layout = layout
        self.side = side
        sprites = [:]
        order = []
        pending = []
        stepsSinceDrop = 0
        // The stickers the jar held are stacked at the new size; a new meal's (the one whose arrival
        // changed the size) still drops in, as do those the jar cannot hold at once.
        let stacked = known.isEmpty ? jar.stickers : jar.stickers.filter { known.contains($0.id) }
        let slots = Self.stack(count: stacked.count, in: layout, side: Double(side))
        for (sticker, slot) in zip(stacked, slots) { add(sticker, at: slot) }
        let placed = Set(stacked.prefix(slots.count).map(\.id))
        pending = jar.stickers.filter { !placed.contains($0.id) }
    }

    /// Places for `count` stickers in rows from the bottom up, clear of the jar's cut corners.
    static func stack(count: Int, in layout: JarLayout, side: Double) -> [(x: Double, y: Double)] {
        let cell = side * 1.08
        let inside = layout.interior
        var slots: [(x: Double, y: Double)] = []
        var y = inside.maxY - cell / 2
        while slots.count < count && y - cell / 2 >= inside.y {
            // A row low enough to meet the cut corners keeps clear of them.
            let inset = inside.maxY - y < layout.corner + cell / 2 ? layout.corner : 0
            let perRow = Int((inside.width - 2 * inset) / cell)
            let left = inside.midX - Double(perRow) * cell / 2
            for column in 0..<perRow where slots.count < count {
                slots.append((left + cell * (Double(column) + 0.5), y))
            }
            y -= cell
        }
        return slots
    }

    /// Adds one sticker: dropped from the top (`drop`), or at `slot`.
    private func add(_ sticker: JarSticker, drop: Bool = false, at slot: (x: Double, y: Double)? = nil) {
        guard let world else { return }
        let sprite =
            sticker.stickerPath.flatMap { pictures.sticker($0, side) }
            ?? Sprite(round: pictures.thumbnail(sticker.thumbnailPath, side) ?? Self.blank, side: side)
        sprites[sticker.id] = sprite
        let outline = sprite.outline()
        world.add(id: sticker.id.rawValue, outline: outline, at: drop ? nil : slot)
        order.append(sticker.id)
    }

    /// A grey disc for a meal whose pictures are gone.
    static let blank = PixelImage(width: 2, height: 2, pixels: [UInt8](repeating: 120, count: 16))
}
