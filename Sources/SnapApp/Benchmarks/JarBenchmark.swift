import Foundation
import SnapCore
import SnapImaging
import SnapJar
import SnapScreens

/// The figures behind Tests/Benchmarks/jar.py: what the jar's physics and one composed frame of it cost.
public enum JarBenchmark {
    public struct Figures: Sendable {
        public var width: Int
        public var height: Int
        public var stickers: Int
        /// CPU per fixed step of the physics while the stickers fall, median of blocks of 10 steps, ms.
        public var stepMs: Double
        /// CPU per composed frame (the screen drawn with every sticker where the physics has it), median, ms.
        public var frameMs: Double
        /// Frames a second one core reaches, stepping the physics at 120 Hz and drawing every frame.
        public var framesPerSecond: Double
        /// Steps from the shake until every sticker slept again.
        public var stepsToSleep: Int
        /// One more meal dropped into the settled jar, until it sleeps: CPU per frame drawn whole, and
        /// drawn only where stickers moved (the display's partial redraw), medians in ms.
        public var dropWholeMs: Double
        public var dropPartialMs: Double
        /// The part of the screen the partial frames drew, on average.
        public var dropPartialShare: Double
    }

    /// Fills a jar of `width`×`height` with `stickers` stickers (half cut-outs from `stickerPath`, half
    /// round cuts of `thumbnailPath`), lets them settle, shakes the jar, and times the steps and `frames`
    /// frames as they tumble.
    public static func run(
        width: Int, height: Int, stickers count: Int, frames: Int, stickerPath: String, thumbnailPath: String
    ) -> Figures {
        let stickers = (0..<count).map { index in
            JarSticker(
                id: PhotoID("b\(index)"), stickerPath: index % 2 == 0 ? stickerPath : nil, thumbnailPath: thumbnailPath,
                title: "Meal \(index)", totals: Macros(calories: 400 + index, protein: 20, carbs: 40, fats: 12),
                funFact: nil)
        }
        let bounds = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        let animator = JarAnimator(seed: 11)
        let screen = Screen.ready(
            ReadyScreen(
                mode: .meal, groupName: nil, totals: Macros(calories: 1800, protein: 90, carbs: 200, fats: 60),
                mealThumbnails: [], groupPhotoAvailable: false, analysesLeft: 7, missingDevices: [],
                jar: JarContents(stickers: stickers)))
        animator.sync(JarContents(stickers: stickers), bounds: bounds)
        animator.settle(limit: 100_000)
        // Stirred: every sticker awake and moving, the heaviest case the physics meets.
        animator.shake()
        let before = animator.steps
        let renderer = ScreenRenderer(images: .disk())
        let canvas = Canvas(width: width, height: height)
        var steps: [Double] = []
        var draws: [Double] = []
        var asleepAt: Int?
        var clock = ContinuousClock.now
        animator.advance(to: clock)
        for _ in 0..<frames {
            // Two steps a frame: the physics at 120 Hz under a 60 Hz display.
            clock += .seconds(2 * JarWorld.step)
            let start = PreviewBenchmark.threadCPU()
            animator.advance(to: clock + .microseconds(10))
            let stepped = PreviewBenchmark.threadCPU()
            renderer.draw(screen, preview: nil, jar: animator.frame, on: canvas)
            let drawn = PreviewBenchmark.threadCPU()
            steps.append((stepped - start) / 2)
            draws.append(drawn - stepped)
            if asleepAt == nil && animator.isAsleep { asleepAt = animator.steps - before }
        }
        animator.settle(limit: 100_000)
        let taken = asleepAt ?? animator.steps - before
        let step = PreviewBenchmark.median(steps)
        let frame = PreviewBenchmark.median(draws)
        let drop = dropOneMore(
            into: animator, stickers, screen: screen, renderer: renderer, width: width, height: height,
            stickerPath: stickerPath, thumbnailPath: thumbnailPath)
        return Figures(
            width: width, height: height, stickers: count, stepMs: step, frameMs: frame,
            framesPerSecond: 1000 / (frame + 2 * step), stepsToSleep: taken, dropWholeMs: drop.whole,
            dropPartialMs: drop.partial, dropPartialShare: drop.share)
    }

    /// A new meal falls into the settled jar, as after every capture: each frame until everything sleeps
    /// is drawn whole on one canvas and only where stickers moved on another, and both are timed.
    private static func dropOneMore(
        into animator: JarAnimator, _ stickers: [JarSticker], screen: Screen, renderer: ScreenRenderer, width: Int,
        height: Int, stickerPath: String, thumbnailPath: String
    ) -> (whole: Double, partial: Double, share: Double) {
        let bounds = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        let more = JarContents(
            stickers: stickers + [
                JarSticker(
                    id: PhotoID("new"), stickerPath: stickerPath, thumbnailPath: thumbnailPath, title: "New meal",
                    totals: Macros(calories: 500, protein: 25, carbs: 50, fats: 15), funFact: nil)
            ])
        let (whole, partial) = (Canvas(width: width, height: height), Canvas(width: width, height: height))
        var last = animator.frame
        renderer.draw(screen, preview: nil, jar: last, on: partial)
        animator.sync(more, bounds: bounds)
        var clock = ContinuousClock.now
        animator.advance(to: clock)
        var (wholeTimes, partialTimes, area) = ([Double](), [Double](), 0.0)
        for _ in 0..<2000 where !animator.isAsleep {
            clock += .seconds(2 * JarWorld.step)
            animator.advance(to: clock + .microseconds(10))
            let frame = animator.frame
            let start = PreviewBenchmark.threadCPU()
            renderer.draw(screen, preview: nil, jar: frame, on: whole)
            let drawn = PreviewBenchmark.threadCPU()
            let damage = ScreenRenderer.jarDamage(from: last, to: frame, highlighted: nil, bounds: bounds)
            if !damage.isEmpty {
                partial.clipped(to: damage) { renderer.draw(screen, preview: nil, jar: frame, on: partial) }
                area += damage.map { Double($0.width * $0.height) }.reduce(0, +)
            }
            partialTimes.append(PreviewBenchmark.threadCPU() - drawn)
            wholeTimes.append(drawn - start)
            last = frame
        }
        let share = area / Double(max(1, partialTimes.count)) / (bounds.width * bounds.height)
        return (PreviewBenchmark.median(wholeTimes), PreviewBenchmark.median(partialTimes), share)
    }
}
