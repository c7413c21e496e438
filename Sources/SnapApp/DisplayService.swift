import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapImaging
import SnapScreens
import Synchronization

/// Draws the current screen, with the live preview under it when the screen shows one, and hands each
/// frame to the display.
///
/// Screen changes are drawn in order, each one; preview frames only as often as the display wants them,
/// and only the newest (the preview never queues). Where the display can scan camera buffers out on a
/// plane of their own (`ScanoutDisplay`), the screens are drawn with a transparent background over the
/// camera's buffer and nothing is copied; otherwise the frame is converted, turned as the camera is
/// mounted, and drawn under the screens on the CPU.
public final class DisplayService: Service {
    private let display: any Display
    private let renderer: ScreenRenderer
    private let slot: PreviewSlot
    private let orientation: Orientation
    private let logger: Logger
    private let current = Mutex<(screen: Screen?, since: ContinuousClock.Instant)>((nil, .now))
    private let changes: AsyncStream<(Screen, FrameChange)>
    private let continuation: AsyncStream<(Screen, FrameChange)>.Continuation

    public init(
        display: any Display, renderer: ScreenRenderer, slot: PreviewSlot, orientation: Orientation = .upright,
        logger: Logger
    ) {
        self.display = display
        self.renderer = renderer
        self.slot = slot
        self.orientation = orientation
        self.logger = logger
        (changes, continuation) = AsyncStream.makeStream()
    }

    /// Shows `screen` next.
    public func show(_ screen: Screen) {
        current.withLock { current in
            if current.screen?.name != screen.name { current.since = .now }
            current.screen = screen
        }
        continuation.yield((screen, .screen(screen.name)))
    }

    /// How long the ready screen has been showing; zero when another screen is.
    public func readyFor() -> Duration {
        current.withLock { current in
            guard case .ready = current.screen else { return .zero }
            return ContinuousClock.now - current.since
        }
    }

    public func run() async throws {
        let canvas = Canvas(width: display.width, height: display.height)
        let rate = display.previewFramesPerSecond
        await withDiscardingTaskGroup { group in
            if rate > 0 {
                group.addTask { await self.pumpPreview(rate: rate) }
            }
            await withGracefulShutdownHandler {
                var failed = false
                var path = ""
                for await (screen, change) in changes {
                    do {
                        try show(screen, change: change, on: canvas, path: &path)
                        failed = false
                    } catch {
                        // Logged once per run of failures: a display that is gone must not flood the journal.
                        if !failed { logger.error("display: \(error)") }
                        failed = true
                    }
                }
            } onGracefulShutdown: {
                self.continuation.finish()
            }
            group.cancelAll()
        }
    }

    private func show(_ screen: Screen, change: FrameChange, on canvas: Canvas, path: inout String)
        throws(DeviceError)
    {
        let frame = screen.showsLivePreview ? slot.latest : nil
        if let frame, frame.scanout != nil, orientation.isUpright, let scanout = display as? any ScanoutDisplay {
            renderer.draw(screen, live: .behind, on: canvas)
            let shown = try scanout.present(canvas, over: frame)
            if scanout.previewPath != path {
                path = scanout.previewPath
                logger.info("live preview: \(path)")
            }
            if shown { return }
        }
        let image = frame?.image.map { orientation.isUpright ? $0 : $0.oriented(orientation) }
        renderer.draw(screen, preview: image, on: canvas)
        try display.present(canvas, change: change)
    }

    private func pumpPreview(rate: Double) async {
        let interval = Duration.milliseconds(Int64(1000 / rate))
        for await _ in slot {
            if let screen = current.withLock({ $0.screen }), screen.showsLivePreview {
                continuation.yield((screen, .preview))
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
