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

    @Test("should send the jar a tilt as the sensor turns and a shake, and wait for a sensor that is gone")
    func relay() async throws {
        let relay = MotionRelay()
        let received = Lock<[JarMotion]>([])
        relay.connect { motion in received.withLock { $0.append(motion) } }
        let log = CapturedLog()
        let service = MotionService(
            sensor: IIOAccelerometer(folder: device), relay: relay, logger: log.logger,
            interval: .milliseconds(10), retryInterval: .milliseconds(100))
        let task = Task { try await service.run() }
        defer { task.cancel() }
        let all = { received.withLock { $0 } }
        // No sensor yet: said once, then found.
        #expect(
            await StationProcess.waitUntil {
                log.all.joined(separator: "\n").contains("no accelerometer at")
            }
        )
        try write(x: 0, y: 981, z: 0)
        #expect(await StationProcess.waitUntil { all().contains(.tilt(x: 0, y: 1)) }, "\(all())")
        try write(x: -490, y: 850, z: 0)
        #expect(await StationProcess.waitUntil { all().count >= 2 }, "\(all())")
        try write(x: 1500, y: 2000, z: 300)
        #expect(await StationProcess.waitUntil { all().contains(.shake) }, "\(all())")
        #expect(
            log.all.joined(separator: "\n").components(separatedBy: "no accelerometer at").count == 2,
            "said once: \(log.all.joined(separator: "\n"))")
    }
}
