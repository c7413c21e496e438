import Foundation
import Logging
import SnapApp
import SnapCore
import SnapDevices
import SnapFiles
import SnapTestSupport
import Synchronization
import Testing

@Suite("MotionService")
struct MotionServiceTests {
    let folder = TemporaryDirectory("motion")

    /// The sensor's folder: it appears whole, as a kernel device's does (a reading between two of its first
    /// files would say another file is missing, in a second warning).
    var device: String { folder.path + "/iio" }

    func write(x: Int, y: Int, z: Int) throws {
        let appearing = !FileManager.default.fileExists(atPath: device)
        let target = appearing ? folder.path + "/iio.partial" : device
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        for (axis, value) in [("x", x), ("y", y), ("z", z)] {
            try "\(value)\n".write(toFile: target + "/in_accel_\(axis)_raw", atomically: true, encoding: .utf8)
        }
        try "0.01\n".write(toFile: target + "/in_accel_scale", atomically: true, encoding: .utf8)
        if appearing { try FileManager.default.moveItem(atPath: target, toPath: device) }
    }

    @Test(
        "should send the jar a tilt as the sensor turns, a shake at most once a second, and wait for a sensor that is gone"
    )
    func relay() async throws {
        let relay = MotionRelay()
        let received = Lock<[JarMotion]>([])
        relay.connect { motion in received.withLock { $0.append(motion) } }
        let log = CapturedLog()
        let clock = HeldClock()
        let service = MotionService(
            sensor: IIOAccelerometer(folder: device), relay: relay, logger: log.logger,
            interval: .milliseconds(50), retryInterval: .seconds(5), clock: clock)
        let task = Task { try await service.run() }
        defer { task.cancel() }
        let all = { received.withLock { $0 } }
        let shakes = { all().filter { $0 == .shake }.count }
        let missing = { log.all.joined(separator: "\n").components(separatedBy: "no accelerometer at").count - 1 }
        /// Moves the clock to the service's next reading and waits until it has read and waits again.
        func next(_ step: Duration) async -> [Duration] {
            clock.advance(by: step)
            return await clock.sleepers()
        }
        // No sensor yet: said once, tried again every 5 s, then found.
        #expect(await clock.sleepers() == [.seconds(5)])
        #expect(missing() == 1)
        #expect(await next(.seconds(5)) == [.seconds(10)])
        #expect(missing() == 1, "said once: \(log.all)")
        try write(x: 0, y: 981, z: 0)
        #expect(await next(.seconds(5)) == [.milliseconds(10_050)], "read at 10 s, then every 50 ms")
        #expect(all() == [.tilt(x: 0, y: 1)])
        #expect(log.all.contains { $0.contains("accelerometer: reading again") })
        try write(x: -490, y: 850, z: 0)
        _ = await next(.milliseconds(50))
        #expect(all().count == 2, "\(all())")
        // Shaken from 10.1 s on: one shake, the next only a second later.
        try write(x: 1500, y: 2000, z: 300)
        _ = await next(.milliseconds(50))
        #expect(shakes() == 1)
        for _ in 0..<19 { _ = await next(.milliseconds(50)) }
        #expect(shakes() == 1, "none at 11.05 s")
        #expect(await next(.milliseconds(50)) == [.milliseconds(11_150)])
        #expect(shakes() == 2, "the next at 11.1 s")
    }
}
