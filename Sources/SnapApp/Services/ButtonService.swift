import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapFiles

/// Forwards button gestures to the station. Buttons that cannot be opened, or that are lost (a GPIO chip
/// taken away), are reported, and opened again every few seconds: the station runs on without them and
/// takes them back when they return. The wait between tries is `retryInterval` of `clock`.
public struct ButtonService: Service {
    let buttons: any Buttons
    let bus: EventBus
    let logger: Logger
    let retryInterval: Duration
    let clock: any ShellClock

    public init(
        buttons: any Buttons, bus: EventBus, logger: Logger, retryInterval: Duration = .seconds(3),
        clock: any ShellClock = SystemClock()
    ) {
        self.buttons = buttons
        self.bus = bus
        self.logger = logger
        self.retryInterval = retryInterval
        self.clock = clock
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
                try? await clock.sleep(for: retryInterval)
            }
        }
        try? await gracefulShutdown()
    }
}
