import SnapCore
import SnapImaging
import SnapScreens

/// The jar on a display: its world matched to the screen's stickers and stepped to each frame's time,
/// and which parts of the canvas a new frame must draw again.
///
/// The display thread owns it (the display service makes every call there), as it owns the canvas the
/// stage remembers: `forget` when the canvas holds anything else, so the next jar frame is drawn whole.
public final class JarStage: @unchecked Sendable {
    /// A jar frame to draw: where every sticker is, whether the world still moves (more frames wanted),
    /// and the parts of the canvas to draw again (nil: all of it; empty: nothing moved, nothing to draw).
    public struct Step {
        public var frame: JarFrame
        public var awake: Bool
        public var parts: [PixelRegion]?
    }

    /// The jar's world; motion (a tilt, a shake) goes to it.
    public let animator: JarAnimator
    /// The jar screen and frame the canvas holds; nil when it holds anything else.
    private var shown: (screen: Screen, frame: JarFrame)?

    public init(animator: JarAnimator = JarAnimator()) {
        self.animator = animator
    }

    /// The canvas no longer holds a jar frame (another screen, a new canvas, a failed present).
    public func forget() { shown = nil }

    /// Another screen shows: the world's clock stops, so it does not jump ahead when the jar comes back.
    public func pause() {
        animator.pause()
        shown = nil
    }

    /// The next frame of `screen`'s `jar` on a canvas of `bounds`, for a display that shows `rate` frames a
    /// second (0: a display that shows no animation gets the settled jar at once). With `partial` (a new
    /// frame of the screen the canvas holds) only the stickers that moved are drawn again.
    public func step(
        _ screen: Screen, _ jar: JarContents, bounds: Rect, rate: Double, partial: Bool,
        now: ContinuousClock.Instant = .now
    ) -> Step {
        animator.sync(jar, bounds: bounds)
        if rate > 0 {
            animator.advance(to: now, catchUp: .milliseconds(max(250, Int64(2000 / rate))))
        } else {
            animator.settle()
        }
        let frame = animator.frame
        var step = Step(frame: frame, awake: rate > 0 && !animator.isAsleep, parts: nil)
        if partial, let shown, shown.screen == screen {
            let highlighted = jar.highlighted.map { jar.stickers[$0].id }
            let damage = ScreenRenderer.jarDamage(
                from: shown.frame, to: frame, highlighted: highlighted, bounds: bounds)
            guard !damage.isEmpty else { return Step(frame: frame, awake: step.awake, parts: []) }
            step.parts = damage
        }
        shown = (screen, frame)
        return step
    }
}
