import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapJar
import SnapScreens
import SnapText
import Synchronization

/// Draws the current screen, with the live preview under it when the screen shows one, and hands each
/// frame to the display, on the display's own thread.
///
/// Drawing and `present` (which waits for a page flip, up to one refresh) run on the "display" thread,
/// never on the cooperative pool. Nothing queues without bound: `show` keeps only the newest screen for
/// a panel (a screen that lasted a few milliseconds was never visible), and a preview frame only marks
/// the screen for a redraw, at most as often as the display wants. A display that records every
/// screen (the headless PNG frames) is given each different screen in order, with updates of one
/// screen (a progress bar, the seconds left) folded into the newest.
///
/// Where the display can scan camera buffers out on a plane of their own (`ScanoutDisplay`), the
/// screens are drawn with a transparent background over the camera's buffer and nothing is copied;
/// otherwise the frame is converted, turned as the camera is mounted, and drawn under the screens on
/// the CPU.
public final class DisplayService: Service {
    private struct Mailbox {
        var current: Screen?
        /// The clock's uptime when the current screen began showing.
        var since: Duration = .zero
        /// Screens not drawn yet, oldest first: at most one unless the display records every screen.
        var pending: [Screen] = []
        /// A newer preview frame waits under the current screen.
        var previewDue = false
        /// The jar's stickers have moved on since the last frame.
        var animationDue = false
        /// The jar's world was awake after the last frame drawn: it wants more frames.
        var jarAwake = false
        /// A draw is submitted to the display thread and has not started yet.
        var scheduled = false
        /// Screens never drawn because newer ones replaced them.
        var skipped = 0
        var draws = 0
        /// When the newest pending screen was shown, and how long screens took from `show` to presented:
        /// a measure of the display's real work, so on the machine's own clock, not the one given.
        var shownAt: ContinuousClock.Instant?
        var presentWaits = LatencyStats()
    }

    /// What only the display thread touches: the canvas, the jar (SnapJar's `JarStage`) and the failure
    /// state.
    private final class Surface: @unchecked Sendable {
        var canvas: Canvas?
        var failed = false
        var path = ""
        /// The panel is off for the night hours.
        var powerOff = false
        let jar: JarStage
        init(jar: JarAnimator) { self.jar = JarStage(animator: jar) }
    }

    /// How many different screens a recording display may be behind before the oldest are skipped.
    static let recordingBacklog = 16

    /// The display, and the real one opened later where it was missing at start.
    private let panel: ReopeningDisplay
    private let recovered: @Sendable () -> Void
    private let retryInterval: Duration
    private let renderer: ScreenRenderer
    /// The language the screens speak now (`station.language`, which the owner may change).
    private let words: Lock<Words>
    private let dimmed = Lock(false)
    private let slot: PreviewSlot
    private let orientation: Orientation
    private let logger: Logger
    private let mailbox = Lock(Mailbox())
    private let surface: Surface
    private let thread = SerialThread(name: "display")
    /// Wakes the jar's frame pump when a frame left the world awake.
    private let jarWake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// How long the ready screen has shown, the frames' pace and the retries of a missing display are
    /// counted on this clock.
    private let clock: any ShellClock

    public init(
        display: any Display, renderer: ScreenRenderer, slot: PreviewSlot, orientation: Orientation = .upright,
        reopen: (@Sendable () throws(DeviceError) -> any Display)? = nil,
        recovered: @escaping @Sendable () -> Void = {},
        retryInterval: Duration = .seconds(5), jar: JarAnimator = JarAnimator(), logger: Logger,
        clock: any ShellClock
    ) {
        self.clock = clock
        surface = Surface(jar: jar)
        panel = ReopeningDisplay(display, reopen: reopen)
        self.recovered = recovered
        self.retryInterval = retryInterval
        self.renderer = renderer
        self.words = Lock(renderer.words)
        self.slot = slot
        self.orientation = orientation
        self.logger = logger
    }

    deinit { thread.shutDown() }

    /// Shows `screen` next. Returns at once; the drawing happens on the display thread.
    public func show(_ screen: Screen) {
        let needsDraw = mailbox.withLock { mailbox -> Bool in
            if mailbox.current?.name != screen.name { mailbox.since = clock.uptime }
            mailbox.current = screen
            mailbox.shownAt = mailbox.shownAt ?? .now
            if display.recordsEveryScreen {
                if mailbox.pending.last?.name == screen.name {
                    mailbox.pending[mailbox.pending.count - 1] = screen
                    mailbox.skipped += 1
                } else {
                    mailbox.pending.append(screen)
                }
                let excess = mailbox.pending.count - Self.recordingBacklog
                if excess > 0 {
                    mailbox.pending.removeFirst(excess)
                    mailbox.skipped += excess
                }
            } else {
                mailbox.skipped += mailbox.pending.count
                mailbox.pending = [screen]
            }
            return self.schedule(&mailbox)
        }
        if needsDraw { thread.submit { self.drawDue() } }
    }

    /// Runs `work` on the display thread once the screens shown so far are drawn (the thread takes its
    /// work in order): what must follow the frame a person last sees, such as the restart into an update.
    public func afterDrawing(_ work: @escaping @Sendable () -> Void) {
        thread.submit(work)
    }

    /// Speaks `words`' language from the next frame on; the screen showing is drawn again in it.
    public func speak(_ words: Words) {
        let changed = self.words.withLock { current in
            defer { current = words }
            return current != words
        }
        if changed { redrawCurrent() }
    }

    /// Dims every frame from the next on (the owner's quiet hours), or lights them again; the screen
    /// showing is drawn again.
    public func dim(_ dimmed: Bool) {
        let changed = self.dimmed.withLock { current in
            defer { current = dimmed }
            return current != dimmed
        }
        if changed { redrawCurrent() }
    }

    private func redrawCurrent() {
        requestRedraw { mailbox in
            guard let current = mailbox.current, mailbox.pending.isEmpty else { return !mailbox.pending.isEmpty }
            mailbox.pending = [current]
            return true
        }
    }

    /// How long the ready screen has been showing; zero when another screen is.
    public func readyFor() -> Duration {
        mailbox.withLock { mailbox in
            guard case .ready = mailbox.current else { return .zero }
            return clock.uptime - mailbox.since
        }
    }

    /// Frames drawn, and screens skipped because a newer one replaced them before they were drawn.
    public var counts: (draws: Int, skipped: Int) { mailbox.withLock { ($0.draws, $0.skipped) } }

    /// How long screens took from `show` to presented (the oldest waiting one of each batch drawn).
    public var presentWaits: LatencyStats { mailbox.withLock { $0.presentWaits } }

    /// How long the display thread has been busy with the frame it is drawing; nil when idle.
    public var busyFor: Duration? { thread.busyFor }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.pumpPreview() }
            group.addTask { await self.pumpJar() }
            if panel.waitsForDisplay { group.addTask { await self.retryMissingDisplay() } }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // The frames already asked for are drawn; then the thread ends.
        _ = try? await thread.run {}
        thread.shutDown()
    }

    /// Marks what to redraw with `mark` (which returns false when there is nothing to) and sends a draw to
    /// the display thread unless one is on its way. Returns what `mark` said.
    @discardableResult
    private func requestRedraw(_ mark: (inout Mailbox) -> Bool) -> Bool {
        let (marked, needsDraw) = mailbox.withLock { mailbox -> (Bool, Bool) in
            guard mark(&mailbox) else { return (false, false) }
            return (true, schedule(&mailbox))
        }
        if needsDraw { thread.submit { self.drawDue() } }
        return marked
    }

    /// Marks the mailbox scheduled when it has work and no draw is on its way; true if one must be sent.
    private func schedule(_ mailbox: inout Mailbox) -> Bool {
        guard !mailbox.scheduled, !mailbox.pending.isEmpty || mailbox.previewDue || mailbox.animationDue else {
            return false
        }
        mailbox.scheduled = true
        return true
    }

    /// On the display thread: draws the screens waiting, then the preview if a new frame came.
    private func drawDue() {
        let (screens, current, preview, animation, shownAt) = mailbox.withLock { mailbox in
            let taken = (mailbox.pending, mailbox.current, mailbox.previewDue, mailbox.animationDue, mailbox.shownAt)
            mailbox.draws += mailbox.pending.count
            mailbox.pending = []
            mailbox.previewDue = false
            mailbox.animationDue = false
            mailbox.scheduled = false
            mailbox.shownAt = nil
            return taken
        }
        let display = self.display
        let canvas =
            surface.canvas.flatMap { $0.width == display.width && $0.height == display.height ? $0 : nil }
            ?? Canvas(width: display.width, height: display.height)
        if canvas !== surface.canvas { surface.jar.forget() }
        surface.canvas = canvas
        let renderer = speaking
        for screen in screens {
            draw(screen, with: renderer, change: .screen(screen.name, caption: screen.caption), on: canvas)
        }
        if let shownAt, let last = screens.last {
            mailbox.withLock { $0.presentWaits.record(.now - shownAt, label: last.name) }
        }
        if screens.isEmpty, let current, (preview && current.showsLivePreview) || (animation && current.jar != nil) {
            draw(current, with: renderer, change: .preview, on: canvas)
            mailbox.withLock { $0.draws += 1 }
        }
    }

    /// The renderer in the language spoken now.
    private var speaking: ScreenRenderer {
        var renderer = self.renderer
        renderer.words = words.withLock { $0 }
        renderer.dimmed = dimmed.withLock { $0 }
        return renderer
    }

    private func draw(_ screen: Screen, with renderer: ScreenRenderer, change: FrameChange, on canvas: Canvas) {
        do {
            try present(screen, with: renderer, change: change, on: canvas)
            surface.failed = false
        } catch {
            // Logged once per run of failures: a display that is gone must not flood the journal.
            if !surface.failed { logger.error("display: \(error)") }
            surface.failed = true
            surface.jar.forget()  // what the panel shows is unknown: the next frame is drawn whole
        }
    }

    private func present(_ screen: Screen, with renderer: ScreenRenderer, change: FrameChange, on canvas: Canvas)
        throws(DeviceError)
    {
        let night = if case .idle(let idle) = screen { idle.displayOff } else { false }
        if screen.jar == nil { surface.jar.forget() }
        // The panel is off: nothing is drawn (a flip while DPMS is off fails or never completes).
        if night && surface.powerOff { return }
        if surface.powerOff && !night {
            surface.powerOff = false
            setPower(on: true)
        }
        defer {
            // After the black frame is up: a display without DPMS shows it, one with it goes dark.
            if night && !surface.powerOff {
                surface.powerOff = true
                setPower(on: false)
            }
        }
        if let jar = screen.jar {
            try presentJar(screen, jar, with: renderer, change: change, on: canvas)
            return
        }
        surface.jar.pause()
        let frame = screen.showsLivePreview ? slot.latest : nil
        if let frame, frame.scanout != nil, orientation.isUpright, let scanout = display as? any ScanoutDisplay {
            renderer.draw(screen, live: .behind, on: canvas)
            let shown = try canvas.withFrame { screens throws(DeviceError) in
                try scanout.present(screens, over: frame)
            }
            if scanout.previewPath != surface.path {
                surface.path = scanout.previewPath
                logger.info("live preview: \(surface.path)")
            }
            if shown { return }
        }
        let image = frame?.image.map { orientation.isUpright ? $0 : $0.oriented(orientation) }
        renderer.draw(screen, preview: image, on: canvas)
        let change = change.withTexts(canvas.drawnTexts)
        try canvas.withFrame { pixels throws(DeviceError) in try display.present(pixels, change: change) }
    }

    /// The panel on or off; a display that cannot is logged and goes on (the night's frame is black).
    private func setPower(on: Bool) {
        do {
            try display.setPower(on: on)
            logger.info("display: \(on ? "on" : "off for the night hours")")
        } catch {
            logger.warning("display: \(error.message); the screen shows black instead")
        }
    }

    /// The jar: its next frame (`JarStage`), drawn where it changed, and the pump woken while anything
    /// still moves.
    private func presentJar(
        _ screen: Screen, _ jar: JarContents, with renderer: ScreenRenderer, change: FrameChange, on canvas: Canvas
    ) throws(DeviceError) {
        let step = surface.jar.step(
            screen, jar, bounds: canvas.bounds, rate: display.previewFramesPerSecond, partial: change == .preview)
        mailbox.withLock { $0.jarAwake = step.awake }
        if step.awake { jarWake.continuation.yield() }
        if step.parts?.isEmpty == true { return }  // nothing moved
        canvas.clipped(to: step.parts) { renderer.draw(screen, preview: nil, jar: step.frame, on: canvas) }
        try canvas.withFrame { pixels throws(DeviceError) in
            try display.present(
                pixels, change: step.parts.map(FrameChange.regions) ?? change.withTexts(canvas.drawnTexts))
        }
    }

    /// Tilts or shakes the jar (the accelerometer, or `tilt` and `shake` typed to the simulated station).
    public func jar(_ motion: JarMotion) {
        thread.submit {
            switch motion {
            case .tilt(let x, let y): self.surface.jar.animator.tilt(x: x, y: y)
            case .shake: self.surface.jar.animator.shake()
            }
            self.requestRedraw { mailbox in
                guard mailbox.current?.jar != nil else { return false }
                mailbox.animationDue = true
                return true
            }
        }
    }

    /// While the jar's world is awake, asks for a frame at the display's rate; asleep, it waits to be
    /// woken and costs nothing.
    private func pumpJar() async {
        for await _ in jarWake.stream {
            while !Task.isCancelled {
                let rate = display.previewFramesPerSecond
                guard rate > 0 else { break }
                do { try await clock.sleep(for: .milliseconds(Int64(1000 / rate))) } catch { return }
                let awake = requestRedraw { mailbox in
                    guard mailbox.jarAwake, mailbox.current?.jar != nil else { return false }
                    mailbox.animationDue = true
                    return true
                }
                if !awake { break }
            }
        }
    }

    /// The display frames go to now.
    private var display: any Display { panel.display }

    /// Once a display missing at start opens (`ReopeningDisplay`), the current screen is drawn on it and
    /// the station is told.
    private func retryMissingDisplay() async {
        guard await panel.reopenWhenAvailable(every: retryInterval, on: thread, clock: clock) else { return }
        logger.notice("display: opened \(display.width)x\(display.height); it was missing at start")
        recovered()
        if let screen = mailbox.withLock({ $0.current }) { show(screen) }
    }

    /// Marks the screen for a redraw as new frames come, at most as often as the display wants them.
    private func pumpPreview() async {
        for await _ in slot {
            let rate = display.previewFramesPerSecond
            guard rate > 0 else {
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                continue
            }
            let interval = Duration.milliseconds(Int64(1000 / rate))
            requestRedraw { mailbox in
                guard let screen = mailbox.current, screen.showsLivePreview else { return false }
                mailbox.previewDue = true
                return true
            }
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }
}
