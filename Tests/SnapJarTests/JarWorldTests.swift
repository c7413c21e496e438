import Foundation
import SnapCore
import SnapImaging
import SnapJar
import SnapScreens
import SnapTestSupport
import Testing

/// Outlines of the kinds the stickers have: discs (round stickers), long boxes, irregular hulls.
enum Shapes {
    static func disc(_ radius: Double) -> [(x: Double, y: Double)] {
        (0..<12).map { index in
            let angle = Double(index) / 12 * 2 * .pi
            return (radius * cos(angle), radius * sin(angle))
        }
    }

    static func box(_ width: Double, _ height: Double) -> [(x: Double, y: Double)] {
        [(-width / 2, -height / 2), (width / 2, -height / 2), (width / 2, height / 2), (-width / 2, height / 2)]
    }

    static func blob(_ size: Double, seed: Int) -> [(x: Double, y: Double)] {
        (0..<9).map { index in
            let angle = Double(index) / 9 * 2 * .pi
            let radius = size * (0.35 + 0.15 * Double((index * 7 + seed * 3) % 5) / 4)
            return (radius * cos(angle), radius * sin(angle))
        }
    }

    static func any(_ index: Int, size: Double) -> [(x: Double, y: Double)] {
        switch index % 3 {
        case 0: disc(size / 2)
        case 1: box(size, size * 0.55)
        default: blob(size, seed: index)
        }
    }
}

@Suite("The jar's physics")
struct JarWorldTests {
    static let layout = JarLayout(bounds: Rect(x: 0, y: 0, width: 800, height: 480))

    static func world(seed: UInt64 = 7) -> JarWorld {
        let i = layout.interior
        return JarWorld(
            interior: .init(x: i.x, y: i.y, width: i.width, height: i.height, corner: layout.corner, wall: layout.wall),
            seed: seed)
    }

    @Test("should keep 60 stickers inside the walls for 10,000 steps and let them fall asleep")
    func settle() {
        let world = Self.world()
        let side = Double(Self.layout.stickerSide(count: 60))
        // Dropped from the top a few at a time, as meals come, then left alone.
        for index in 0..<60 {
            world.add(id: "s\(index)", outline: Shapes.any(index, size: side))
            for _ in 0..<40 { world.step() }
        }
        var escaped: Set<String> = []
        for step in 0..<10_000 {
            world.step()
            if step % 50 == 0 {
                for placement in world.placements
                where !world.interior.contains(x: placement.x, y: placement.y, slack: 1) {
                    escaped.insert(placement.id)
                }
            }
        }
        #expect(escaped.isEmpty, "escaped the jar: \(escaped.sorted())")
        #expect(world.placements.count == 60)
        #expect(world.isAsleep, "still moving after 10,000 steps")
        // They lie in the lower part: nothing floats.
        let lowest = world.placements.map(\.y).max() ?? 0
        #expect(lowest > world.interior.y + world.interior.height * 0.8)
    }

    @Test("should replay exactly from the same seed, and drop elsewhere from another")
    func replay() {
        func run(seed: UInt64) -> [JarWorld.Placement] {
            let world = Self.world(seed: seed)
            for index in 0..<12 {
                world.add(id: "s\(index)", outline: Shapes.any(index, size: 60))
                for _ in 0..<30 { world.step() }
            }
            for _ in 0..<1500 { world.step() }
            return world.placements
        }
        let first = run(seed: 42)
        #expect(run(seed: 42) == first)
        #expect(run(seed: 43) != first)
    }

    @Test("should wake on a shake and a tilt, and sleep again; a removed sticker lets the others fall")
    func motion() {
        let world = Self.world()
        for index in 0..<10 { world.add(id: "s\(index)", outline: Shapes.any(index, size: 70)) }
        var steps = 0
        while !world.isAsleep && steps < 5000 {
            world.step()
            steps += 1
        }
        #expect(world.isAsleep, "settled in \(steps) steps")
        let settled = world.placements
        world.shake()
        #expect(!world.isAsleep)
        for _ in 0..<3000 { world.step() }
        #expect(world.placements != settled)
        world.setGravity(x: -1270, y: 1270)
        #expect(!world.isAsleep)
        for _ in 0..<3000 { world.step() }
        let leftward = world.placements.map(\.x).reduce(0, +) / 10
        world.setGravity(x: 1270, y: 1270)
        for _ in 0..<3000 { world.step() }
        let rightward = world.placements.map(\.x).reduce(0, +) / 10
        #expect(rightward > leftward + 10, "tilting moves the pile: \(leftward) → \(rightward)")
        steps = 0
        while !world.isAsleep && steps < 5000 {
            world.step()
            steps += 1
        }
        #expect(world.isAsleep, "asleep again")
        world.remove(id: "s0")
        #expect(world.ids.count == 9 && !world.ids.contains("s0"))
    }
}

@Suite("The jar on the display")
struct JarAnimatorTests {
    let folder = TemporaryDirectory("jar")

    /// A PNG sticker: an opaque triangle on transparency.
    func triangle(_ name: String) throws -> String {
        let size = 120
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size where x <= y {
                let index = (y * size + x) * 4
                pixels[index..<index + 4] = [200, 80, 40, 255]
            }
        }
        let path = folder.path + "/\(name).png"
        try Data(PNG.encode(withAlpha: PixelImage(width: size, height: size, pixels: pixels))).write(
            to: URL(fileURLWithPath: path))
        return path
    }

    func sticker(_ id: String, path: String?) -> JarSticker {
        JarSticker(
            id: PhotoID(id), stickerPath: path, thumbnailPath: folder.path + "/missing.jpg", title: "Meal \(id)",
            totals: Macros(calories: 500, protein: 20, carbs: 50, fats: 15), funFact: nil)
    }

    @Test("should outline a sticker by its opaque pixels, and cut a thumbnail round")
    func outlines() throws {
        let sprite = try #require(Sprite(png: try triangle("t"), side: 100))
        #expect(sprite.width == 100 && sprite.height == 100)
        let outline = sprite.outline()
        #expect((3...12).contains(outline.count))
        // The triangle's corners: top left, bottom left, bottom right (around the centre).
        let area =
            zip(outline, outline.dropFirst() + [outline[0]]).reduce(0.0) { $0 + ($1.0.x * $1.1.y - $1.1.x * $1.0.y) }
            / 2
        #expect(abs(abs(area) - 5000) < 600, "about half the square: \(area)")
        let round = Sprite(round: TestImages.marked(width: 64, height: 48), side: 80)
        let disc = round.outline()
        let radii = disc.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() }
        #expect(radii.allSatisfy { abs($0 - 40) < 4 }, "\(radii)")
    }

    @Test("should stage a jar frame whole first, then only where it moved, and nothing once it sleeps")
    func stage() throws {
        let stage = JarStage(animator: JarAnimator(seed: 5))
        let bounds = Rect(x: 0, y: 0, width: 800, height: 480)
        let jar = JarContents(stickers: (0..<4).map { sticker("s\($0)", path: nil) })
        let screen = Screen.ready(
            ReadyScreen(
                mode: .meal, groupName: nil, totals: .zero, mealThumbnails: [], groupPhotoAvailable: false,
                analysesLeft: 5, missingDevices: [], jar: jar))
        var clock = ContinuousClock.now
        let first = stage.step(screen, jar, bounds: bounds, rate: 30, partial: true, now: clock)
        #expect(first.parts == nil && first.awake, "the first frame is drawn whole, and the stickers fall")
        var steps = 0
        var step = first
        while step.awake && steps < 2000 {
            clock += .milliseconds(33)
            step = stage.step(screen, jar, bounds: bounds, rate: 30, partial: true, now: clock)
            steps += 1
        }
        #expect(!step.awake, "asleep after \(steps) frames")
        clock += .milliseconds(33)
        #expect(stage.step(screen, jar, bounds: bounds, rate: 30, partial: true, now: clock).parts == [])
        stage.forget()
        #expect(stage.step(screen, jar, bounds: bounds, rate: 30, partial: true, now: clock).parts == nil)
        let settled = JarStage(animator: JarAnimator(seed: 5))
        #expect(!settled.step(screen, jar, bounds: bounds, rate: 0, partial: false).awake, "no animation: settled")
    }

    @Test("should redraw only where stickers moved, and end with the same pixels as whole redraws")
    func partialRedraw() throws {
        let animator = JarAnimator(seed: 5)
        let bounds = Rect(x: 0, y: 0, width: 800, height: 480)
        let path = try triangle("p")
        var jar = JarContents(stickers: (0..<6).map { sticker("s\($0)", path: $0 % 2 == 0 ? path : nil) })
        animator.sync(jar, bounds: bounds)
        animator.settle()
        func screen(_ jar: JarContents) -> Screen {
            .ready(
                ReadyScreen(
                    mode: .meal, groupName: nil, totals: .zero, mealThumbnails: [], groupPhotoAvailable: false,
                    analysesLeft: 5, missingDevices: [], jar: jar))
        }
        let renderer = ScreenRenderer(images: .disk())
        let partial = Canvas(width: 800, height: 480)
        var last = animator.frame
        #expect(ScreenRenderer.jarDamage(from: last, to: animator.frame, highlighted: nil, bounds: bounds).isEmpty)
        // A new meal drops in: from then on each frame redraws only its damage on the canvas it left.
        jar.stickers.append(sticker("s6", path: path))
        animator.sync(jar, bounds: bounds)
        renderer.draw(screen(jar), preview: nil, jar: last, on: partial)
        var clock = ContinuousClock.now
        animator.advance(to: clock)
        var (frames, drawnArea) = (0, 0.0)
        while !animator.isAsleep && frames < 600 {
            clock += .milliseconds(33)
            animator.advance(to: clock)
            let frame = animator.frame
            let damage = ScreenRenderer.jarDamage(from: last, to: frame, highlighted: nil, bounds: bounds)
            if !damage.isEmpty {
                drawnArea += damage.map { Double($0.width * $0.height) }.reduce(0, +)
                partial.clipped(to: damage) { renderer.draw(screen(jar), preview: nil, jar: frame, on: partial) }
            }
            last = frame
            frames += 1
        }
        #expect(animator.isAsleep, "settled after \(frames) frames")
        let whole = Canvas(width: 800, height: 480)
        renderer.draw(screen(jar), preview: nil, jar: animator.frame, on: whole)
        let (got, want) = (partial.snapshot().pixels, whole.snapshot().pixels)
        var differing: [(x: Int, y: Int, by: Int)] = []
        for index in stride(from: 0, to: want.count, by: 4) {
            let by = (0..<3).map { abs(Int(got[index + $0]) - Int(want[index + $0])) }.max()!
            if by > 0 { differing.append(((index / 4) % 800, (index / 4) / 800, by)) }
        }
        let box =
            differing.isEmpty
            ? ""
            : "x \(differing.map(\.x).min()!)...\(differing.map(\.x).max()!), y \(differing.map(\.y).min()!)...\(differing.map(\.y).max()!), at most \(differing.map(\.by).max()!) levels"
        // Cairo rasterises an antialiased edge that a clip cuts through (the glass's chamfers) a few levels
        // differently from the same edge drawn whole: a handful of such pixels is the only difference
        // allowed. A sticker left behind or cut off differs by far more, over far more pixels.
        #expect(
            differing.count <= 40 && differing.allSatisfy { $0.by <= 8 },
            "the same picture as a whole redraw: \(differing.count) pixels differ, \(box)")
        let fraction = drawnArea / Double(frames) / (800 * 480)
        #expect(fraction < 0.35, "a frame redrew \(Int(fraction * 100)) % of the screen on average")
    }

    @Test("should drop a new sticker in, remove a deleted one, and sleep when all is still")
    func sync() throws {
        let animator = JarAnimator(seed: 3)
        let bounds = Rect(x: 0, y: 0, width: 800, height: 480)
        let path = try triangle("a")
        var jar = JarContents(stickers: (0..<5).map { sticker("m\($0)", path: $0 % 2 == 0 ? path : nil) })
        animator.sync(jar, bounds: bounds)
        animator.settle()
        #expect(animator.isAsleep)
        #expect(animator.frame.items.count == 5)
        let settled = animator.frame.items.map(\.y)
        jar.stickers.append(sticker("m5", path: path))
        animator.sync(jar, bounds: bounds)
        #expect(!animator.isAsleep, "the new sticker falls")
        let dropped = try #require(animator.frame.items.first { $0.id == PhotoID("m5") })
        #expect(dropped.y < settled.min()!, "it starts above the others")
        animator.settle()
        #expect(animator.isAsleep)
        jar.stickers.removeFirst()
        animator.sync(jar, bounds: bounds)
        #expect(animator.frame.items.map(\.id).contains(PhotoID("m0")) == false)
        #expect(animator.frame.items.count == 5)
        // Stepping a sleeping world moves nothing.
        animator.settle()
        let before = animator.frame.items.map(\.x)
        animator.advance(to: .now)
        animator.advance(to: .now + .seconds(1))
        #expect(animator.frame.items.map(\.x) == before)
    }
}

@Suite("The jar when it starts full")
struct JarStartTests {
    @Test("should stack what fits, drop the rest in one by one, and fall asleep with all of them inside")
    func overflow() {
        let blank: JarAnimator.Pictures = .init(sticker: { _, _ in nil }, thumbnail: { _, _ in nil })
        let animator = JarAnimator(pictures: blank, seed: 11)
        let bounds = Rect(x: 0, y: 0, width: 800, height: 480)
        let stickers = (0..<20).map {
            JarSticker(
                id: PhotoID("b\($0)"), stickerPath: nil, thumbnailPath: "", title: "t", totals: .zero, funFact: nil)
        }
        animator.sync(JarContents(stickers: stickers), bounds: bounds)
        #expect(animator.frame.items.count < 20, "some wait to drop")
        #expect(!animator.isAsleep)
        // The display's way: a frame every 100 ms, the world stepped to the frame's time.
        var clock = ContinuousClock.now
        animator.advance(to: clock)
        var frames = 0
        while !animator.isAsleep && frames < 300 {
            clock += .milliseconds(100)
            animator.sync(JarContents(stickers: stickers), bounds: bounds)
            animator.advance(to: clock)
            frames += 1
        }
        #expect(animator.isAsleep, "asleep after \(frames) frames")
        #expect(animator.frame.items.count == 20)
        // Ten more meals make the stickers smaller: the jar is stacked again, and the new ones drop in.
        let more =
            stickers
            + (20..<30).map {
                JarSticker(
                    id: PhotoID("b\($0)"), stickerPath: nil, thumbnailPath: "", title: "t", totals: .zero, funFact: nil)
            }
        animator.sync(JarContents(stickers: more), bounds: bounds)
        #expect(!animator.frame.items.contains { $0.id == PhotoID("b29") }, "the newest waits at the top to drop")
        #expect(animator.frame.items.filter { Int($0.id.rawValue.dropFirst())! < 20 }.count == 20, "the old ones stay")
        animator.settle(limit: 20_000)
        #expect(animator.isAsleep && animator.frame.items.count == 30)
        let world = animator.world!
        #expect(world.placements.allSatisfy { world.interior.contains(x: $0.x, y: $0.y, slack: 1) })
    }
}
