import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapFiles

/// Reads the accelerometer (`jar.accelerometer`) 20 times a second on its own thread and sends the jar
/// a tilt when gravity turned and a shake when the station was shaken. A sensor that cannot be read is
/// logged once and tried again every few seconds; meanwhile the jar keeps its last direction.
public struct MotionService: Service {
    let sensor: IIOAccelerometer
    let relay: MotionRelay
    let logger: Logger
    let interval: Duration
    let retryInterval: Duration
    /// The readings' pace, the retries and the time a shake is counted at are on this clock.
    let clock: any ShellClock

    public init(
        sensor: IIOAccelerometer, relay: MotionRelay, logger: Logger, interval: Duration = .milliseconds(50),
        retryInterval: Duration = .seconds(5), clock: any ShellClock
    ) {
        self.sensor = sensor
        self.relay = relay
        self.logger = logger
        self.interval = interval
        self.retryInterval = retryInterval
        self.clock = clock
    }

    public func run() async throws {
        let thread = SerialThread(name: "motion")
        defer { thread.shutDown() }
        await cancelWhenGracefulShutdown {
            var filter = MotionFilter()
            var failing: String?
            while !Task.isCancelled {
                let sensor = self.sensor
                let reading = try? await thread.run {
                    () -> Result<IIOAccelerometer.Reading, IIOAccelerometer.AccelerometerError> in
                    Result { () throws(IIOAccelerometer.AccelerometerError) in try sensor.read() }
                }
                switch reading {
                case .success(let reading):
                    if failing != nil { logger.notice("accelerometer: reading again at \(sensor.folder)") }
                    failing = nil
                    for motion in filter.motions(for: reading, on: sensor, at: clock.uptime) {
                        relay.send(motion)
                    }
                    try? await clock.sleep(for: interval)
                case .failure(let error):
                    if failing != error.description { logger.warning("accelerometer: \(error)") }
                    failing = error.description
                    try? await clock.sleep(for: retryInterval)
                case nil:
                    return
                }
            }
        }
    }
}
