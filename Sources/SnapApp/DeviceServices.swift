import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices

/// Streams the camera into the preview slot while someone needs it (`CameraDemand`), and closes it when
/// nobody does. When the camera fails or is missing, it tells the station and, while the camera is still
/// wanted, tries again every few seconds, so an unplugged USB camera comes back by itself.
public struct CameraService: Service {
    let camera: any Camera
    let slot: PreviewSlot
    let demand: CameraDemand
    let bus: EventBus
    let logger: Logger
    let retryInterval: Duration

    public init(
        camera: any Camera, slot: PreviewSlot, demand: CameraDemand, bus: EventBus, logger: Logger,
        retryInterval: Duration = .seconds(3)
    ) {
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
                try? await Task.sleep(for: retryInterval)
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

/// Forwards button gestures to the station. Buttons that cannot be opened, or that are lost (a GPIO chip
/// taken away), are reported, and opened again every few seconds: the station runs on without them and
/// takes them back when they return.
public struct ButtonService: Service {
    let buttons: any Buttons
    let bus: EventBus
    let logger: Logger
    let retryInterval: Duration

    public init(buttons: any Buttons, bus: EventBus, logger: Logger, retryInterval: Duration = .seconds(3)) {
        self.buttons = buttons
        self.bus = bus
        self.logger = logger
        self.retryInterval = retryInterval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var missing: String?
            while !Task.isCancelled {
                do throws(DeviceError) {
                    let gestures = try buttons.gestures()
                    if missing != nil {
                        logger.notice("buttons are back")
                        bus.send(.device(.buttons, .available))
                        missing = nil
                    }
                    for await gesture in gestures {
                        logger.debug("button: \(gesture.rawValue)")
                        bus.send(.button(gesture))
                    }
                    // The input ended: standard input closed (the station runs on), or the lines were lost.
                    guard buttons.reopensWhenLost, !Task.isCancelled else { break }
                    throw DeviceError(.buttons, "the button lines were lost")
                } catch {
                    if missing != error.message {
                        logger.error("buttons: \(error.message)")
                        bus.send(.device(.buttons, .missing(error.message)))
                        missing = error.message
                    }
                }
                guard buttons.reopensWhenLost || missing == nil else { break }
                try? await Task.sleep(for: retryInterval)
            }
        }
        try? await gracefulShutdown()
    }
}
