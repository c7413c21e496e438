import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapImaging
import Synchronization

/// Takes the reference frame while the station is idle: after the ready screen has shown for `idle`
/// without a press, when there is none yet, after each capture, and every `refresh` anyway (light
/// changes over a day). The frame is a still, turned like the photos, so it lines up with them. Where
/// the ready screen shows no preview (the jar) the camera is stopped: the service holds it for the
/// moment it takes the frame, and lets a camera it woke settle its exposure first.
///
/// What this cannot know: a plate left in view while the station idles becomes part of the "empty"
/// scene, and the next sticker then finds nothing and falls back to the plain photo, saying so.
public struct ReferenceService: Service {
    let camera: any Camera
    let demand: CameraDemand
    let display: DisplayService
    let frame: ReferenceFrame
    let orientation: Orientation
    let idle: Duration
    let refresh: Duration
    /// How long a camera woken for the frame runs before the still: its exposure settles.
    let settle: Duration
    let logger: Logger

    public init(
        camera: any Camera, demand: CameraDemand, display: DisplayService, frame: ReferenceFrame,
        orientation: Orientation,
        idle: Duration = .seconds(20), refresh: Duration = .seconds(1800), settle: Duration = .seconds(1),
        logger: Logger
    ) {
        self.camera = camera
        self.demand = demand
        self.display = display
        self.frame = frame
        self.orientation = orientation
        self.idle = idle
        self.refresh = refresh
        self.settle = settle
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                guard display.readyFor() >= idle, frame.needsRefresh(olderThan: refresh) else { continue }
                guard let still = await takeStill() else { continue }
                frame.store(still.oriented(orientation).downscaled(toFit: 384))
                logger.info("took a reference frame of the empty scene")
            }
        }
    }

    /// A still from the camera, woken for it if nobody else holds it; nil if it does not come.
    private func takeStill() async -> PixelImage? {
        let woken = !demand.streaming
        demand.hold(.reference, true)
        defer { demand.hold(.reference, false) }
        guard await demand.untilStreaming(timeout: .seconds(5)) else { return nil }
        // A camera just started meters the scene over its first frames.
        if woken { try? await Task.sleep(for: settle) }
        return try? await camera.captureStill()
    }
}
