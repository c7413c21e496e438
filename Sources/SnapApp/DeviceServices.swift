import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices

/// Keeps the camera streaming into the preview slot; when it fails or is missing, tells the station and
/// tries again every few seconds, so an unplugged USB camera comes back by itself.
public struct CameraService: Service {
    let camera: any Camera
    let slot: PreviewSlot
    let bus: EventBus
    let logger: Logger
    let retryInterval: Duration

    public init(
        camera: any Camera, slot: PreviewSlot, bus: EventBus, logger: Logger, retryInterval: Duration = .seconds(3)
    ) {
        self.camera = camera
        self.slot = slot
        self.bus = bus
        self.logger = logger
        self.retryInterval = retryInterval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var reported: String?
            while !Task.isCancelled {
                do throws(DeviceError) {
                    try await camera.streamPreview(into: slot) { [bus] in bus.send(.device(.camera, .available)) }
                    return
                } catch {
                    if reported != error.message {
                        logger.error("camera: \(error.message)")
                        reported = error.message
                    }
                    bus.send(.device(.camera, .missing(error.message)))
                }
                // Cancellation (shutdown) ends the sleep early, and the loop with it.
                try? await Task.sleep(for: retryInterval)
            }
        }
    }
}

/// Forwards button gestures to the station; buttons that cannot be opened are reported, and the station
/// runs on without them.
public struct ButtonService: Service {
    let buttons: any Buttons
    let bus: EventBus
    let logger: Logger

    public init(buttons: any Buttons, bus: EventBus, logger: Logger) {
        self.buttons = buttons
        self.bus = bus
        self.logger = logger
    }

    public func run() async throws {
        do throws(DeviceError) {
            let gestures = try buttons.gestures()
            await cancelWhenGracefulShutdown {
                for await gesture in gestures {
                    logger.debug("button: \(gesture.rawValue)")
                    bus.send(.button(gesture))
                }
            }
        } catch {
            logger.error("buttons: \(error.message)")
            bus.send(.device(.buttons, .missing(error.message)))
        }
        // The input may end (standard input closed); the station keeps running until it is stopped.
        try? await gracefulShutdown()
    }
}
