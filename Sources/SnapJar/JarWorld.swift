internal import CChipmunk

/// The jar's physics: stickers as rigid convex bodies in a jar of thick static walls, on Chipmunk2D.
///
/// Coordinates are the display's pixels, y down (gravity is +y when the station stands upright). The
/// world steps at a fixed `step`, whatever the display's rate; bodies fall asleep when they have been
/// still for half a second, and a world whose bodies all sleep costs nothing until something wakes it.
/// Given the same seed and the same calls, the world replays exactly (the seed places the drops).
///
/// Owns the Chipmunk space, its bodies and shapes, and frees them in `deinit`: one owner, used from one
/// thread (the display's).
public final class JarWorld {
    /// Where a sticker is: its center and turn (radians, clockwise on screen).
    public struct Placement: Sendable, Hashable {
        public var id: String
        public var x: Double
        public var y: Double
        public var angle: Double
        public var sleeping: Bool
    }

    /// The jar's inside: a rectangle with its bottom corners cut by `corner` pixels, walls `wall` thick.
    public struct Interior: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
        public var corner: Double
        public var wall: Double

        public init(x: Double, y: Double, width: Double, height: Double, corner: Double, wall: Double) {
            (self.x, self.y, self.width, self.height, self.corner, self.wall) = (x, y, width, height, corner, wall)
        }

        /// Whether a point is inside the walls (with `slack` pixels to spare).
        public func contains(x px: Double, y py: Double, slack: Double = 0) -> Bool {
            px >= x - slack && px <= x + width + slack && py >= y - slack && py <= y + height + slack
        }
    }

    public static let step = 1.0 / 120.0
    public let interior: Interior
    private let space: OpaquePointer
    private var bodies: [(id: String, body: OpaquePointer, shape: OpaquePointer)] = []
    private var walls: [OpaquePointer] = []
    private var random: SplitMix

    /// Debian's libchipmunk is a debug build, whose first space of a process prints a banner to standard
    /// output (on the appliance, into the journal at every start): the first is made quietly, once
    /// (`ss_chipmunk_quiet_banner`). What the debug build costs the jar (4-5 % of a physics step, under
    /// 0.1 ms a frame): docs/benchmarks.md, "The jar: Debian's debug Chipmunk".
    private static let quietBanner: Void = ss_chipmunk_quiet_banner()

    /// A jar of `interior`, gravity `gravity` pixels/s² (y down), drops placed from `seed`.
    public init(interior: Interior, gravity: (x: Double, y: Double) = (0, 1800), seed: UInt64 = 1) {
        self.interior = interior
        random = SplitMix(seed: seed)
        Self.quietBanner
        space = cpSpaceNew()
        cpSpaceSetIterations(space, 12)
        cpSpaceSetGravity(space, cpv(gravity.x, gravity.y))
        cpSpaceSetDamping(space, 0.85)
        cpSpaceSetSleepTimeThreshold(space, 0.5)
        cpSpaceSetIdleSpeedThreshold(space, 6)
        cpSpaceSetCollisionSlop(space, 0.5)
        let (left, top, right, bottom) = (
            interior.x, interior.y, interior.x + interior.width, interior.y + interior.height
        )
        let r = interior.wall / 2
        let c = interior.corner
        // The walls' centre lines sit half a wall outside the inside, so the inside is what is left.
        let outline = [
            (left - r, top - r), (left - r, bottom - c), (left + c - r * 0.4, bottom + r),
            (right - c + r * 0.4, bottom + r),
            (right + r, bottom - c), (right + r, top - r),
        ]
        let staticBody = cpSpaceGetStaticBody(space)
        var points = outline
        points.append((left - r, top - r))  // the lid: nothing is shaken out of the top
        for index in 0..<(points.count - 1) {
            let (a, b) = (points[index], points[index + 1])
            guard let wall = cpSegmentShapeNew(staticBody, cpv(a.0, a.1), cpv(b.0, b.1), r) else { continue }
            cpShapeSetFriction(wall, 0.7)
            cpShapeSetElasticity(wall, 0.2)
            cpSpaceAddShape(space, wall)
            walls.append(wall)
        }
    }

    deinit {
        for (_, body, shape) in bodies {
            cpSpaceRemoveShape(space, shape)
            cpSpaceRemoveBody(space, body)
            cpShapeFree(shape)
            cpBodyFree(body)
        }
        for wall in walls {
            cpSpaceRemoveShape(space, wall)
            cpShapeFree(wall)
        }
        cpSpaceFree(space)
    }

    /// The ids in the jar, in the order they were added.
    public var ids: [String] { bodies.map(\.id) }

    /// Adds a sticker of convex `outline` (points around its center, in pixels; its hull is taken) that
    /// drops from the top of the jar at a place the seed picks, or at `at` when given.
    public func add(
        id: String, outline: [(x: Double, y: Double)], at: (x: Double, y: Double)? = nil, angle: Double? = nil
    ) {
        remove(id: id)
        var vertices = outline.map { cpv($0.x, $0.y) }
        if vertices.count < 3 { vertices = [cpv(-8, -8), cpv(8, -8), cpv(8, 8), cpv(-8, 8)] }
        let mass = max(1, cpAreaForPoly(Int32(vertices.count), &vertices, 0) / 1000)
        let moment = cpMomentForPoly(mass, Int32(vertices.count), &vertices, cpvzero, 0)
        guard let body = cpBodyNew(mass, moment) else { return }
        let radius = vertices.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() }.max() ?? 8
        let x =
            at?.x
            ?? interior.x + radius + random.unit() * max(1, interior.width - 2 * radius)
        let y = at?.y ?? interior.y + radius + 2
        cpBodySetPosition(body, cpv(x, y))
        cpBodySetAngle(body, angle ?? (random.unit() - 0.5) * 1.2)
        cpBodySetAngularVelocity(body, (random.unit() - 0.5) * 2)
        let identity = cpTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        guard let shape = cpPolyShapeNew(body, Int32(vertices.count), &vertices, identity, 1) else {
            cpBodyFree(body)
            return
        }
        cpShapeSetFriction(shape, 0.8)
        cpShapeSetElasticity(shape, 0.15)
        cpSpaceAddBody(space, body)
        cpSpaceAddShape(space, shape)
        bodies.append((id, body, shape))
    }

    public func remove(id: String) {
        guard let index = bodies.firstIndex(where: { $0.id == id }) else { return }
        let (_, body, shape) = bodies.remove(at: index)
        cpSpaceRemoveShape(space, shape)
        cpSpaceRemoveBody(space, body)
        cpShapeFree(shape)
        cpBodyFree(body)
        // The ones that leaned on it fall again.
        for other in bodies { cpBodyActivate(other.body) }
    }

    /// Drops any body that got out through a wall (a hard shake can push one through) in again from the
    /// top, still. Returns how many. The walls hold in every test; this is the belt to their braces.
    @discardableResult
    public func returnEscaped() -> Int {
        var returned = 0
        for entry in bodies {
            let position = cpBodyGetPosition(entry.body)
            guard !interior.contains(x: position.x, y: position.y, slack: interior.wall) else { continue }
            cpBodySetPosition(entry.body, cpv(interior.x + interior.width / 2, interior.y + interior.wall))
            cpBodySetVelocity(entry.body, cpv(0, 0))
            cpBodySetAngularVelocity(entry.body, 0)
            cpBodyActivate(entry.body)
            returned += 1
        }
        return returned
    }

    /// Advances the world by one fixed step.
    public func step() {
        cpSpaceStep(space, Self.step)
    }

    /// Whether every body sleeps: nothing will move until something wakes them.
    public var isAsleep: Bool {
        bodies.allSatisfy { cpBodyIsSleeping($0.body) != 0 }
    }

    public var placements: [Placement] {
        bodies.map { entry in
            let position = cpBodyGetPosition(entry.body)
            return Placement(
                id: entry.id, x: position.x, y: position.y, angle: cpBodyGetAngle(entry.body),
                sleeping: cpBodyIsSleeping(entry.body) != 0)
        }
    }

    /// Points gravity along `x, y` (pixels/s², y down), as the station is tilted; wakes every body.
    public func setGravity(x: Double, y: Double) {
        let old = cpSpaceGetGravity(space)
        guard old.x != x || old.y != y else { return }
        cpSpaceSetGravity(space, cpv(x, y))
        for entry in bodies { cpBodyActivate(entry.body) }
    }

    /// A shake: every body gets a kick upwards and sideways, at most `speed` pixels a second.
    public func shake(speed: Double = 700) {
        for entry in bodies {
            cpBodyActivate(entry.body)
            let velocity = cpv((random.unit() - 0.5) * speed, -random.unit() * speed)
            cpBodySetVelocity(entry.body, velocity)
            cpBodySetAngularVelocity(entry.body, (random.unit() - 0.5) * 8)
        }
    }
}

/// A small seeded generator (SplitMix64): the same seed drops the stickers at the same places.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
