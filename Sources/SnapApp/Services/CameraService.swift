import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapFiles

/// Streams the camera into the preview slot while someone needs it (`CameraDemand`), and closes it when
/// nobody does. When the camera fails or is missing, it tells the station and, while the camera is still
/// wanted, tries again every few seconds (`retryInterval` of `clock`), so an unplugged USB camera comes
/// back by itself.
public struct CameraService: Service {
    let camera: any Camera
    let slot: PreviewSlot
    let demand: CameraDemand
    let bus: EventBus
    let logger: Logger
    let retryInterval: Duration
    let clock: any ShellClock

    public init(
        camera: any Camera, slot: PreviewSlot, demand: CameraDemand, bus: EventBus, logger: Logger,
        retryInterval: Duration = .seconds(3), clock: any ShellClock = SystemClock()
    ) {
        self.clock = clock
        self.camera = camera
        self.slot = slot
        self.demand = demand
        self.bus = bus
        self.logger = logger
        self.retryInterval = retryInterval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var reported: String?
            while !Task.isCancelled {
                guard await demand.untilWanted() else { return }
                let failure = await streamWhileWanted()
                demand.setStreaming(false)
                slot.clear()
                guard let failure else {
                    logger.info("camera: stopped (nothing shows its picture)")
                    continue
                }
                if reported != failure.message {
                    logger.error("camera: \(failure.message)")
                    reported = failure.message
                }
                bus.send(.device(.camera, .missing(failure.message)))
                // Cancellation (shutdown) ends the sleep early, and the loop with it.
                try? await clock.sleep(for: retryInterval)
            }
        }
    }

    /// Streams until nobody needs the camera (nil) or it fails (the reason).
    private func streamWhileWanted() async -> DeviceError? {
        await withTaskGroup(of: DeviceError?.self) { group in
            group.addTask { [camera, slot, demand, bus, logger] in
                do throws(DeviceError) {
                    try await camera.streamPreview(into: slot) {
                        if let woke = demand.setStreaming(true) {
                            logger.info("camera: streaming", metadata: ["wake_ms": "\(woke.milliseconds)"])
                        }
                        bus.send(.device(.camera, .available))
                    }
                    return nil
                } catch {
                    return error
                }
            }
            group.addTask { [demand] in
                // Not streaming from here on: a still asked for now waits for the next start, rather than
                // reaching a camera that is stopping.
                if await demand.untilUnwanted() { demand.setStreaming(false) }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
