import Foundation
import SnapCore
import SnapDevices
import SnapTestSupport
import Testing

/// The accelerometer's sysfs files as the kernel's IIO drivers lay them out (an MPU-6050: raw counts and
/// one scale for the three axes), in a folder of real files.
@Suite("The IIO accelerometer")
struct IIOAccelerometerTests {
    let folder = TemporaryDirectory("iio")

    /// Writes a reading in m/s² as raw counts with the MPU-6050's scale at ±2 g.
    func write(x: Double, y: Double, z: Double, scale: Double = 0.000598) throws {
        for (axis, value) in [("x", x), ("y", y), ("z", z)] {
            try "\(Int((value / scale).rounded()))\n".write(
                toFile: folder.path + "/in_accel_\(axis)_raw", atomically: true, encoding: .utf8)
        }
        try "\(scale)\n".write(toFile: folder.path + "/in_accel_scale", atomically: true, encoding: .utf8)
    }

    @Test("should read the three axes in m/s², with the driver's scale and offset")
    func read() throws {
        try write(x: 0, y: 9.81, z: 0.3)
        let reading = try IIOAccelerometer(folder: folder.path).read()
        #expect(abs(reading.y - 9.81) < 0.01 && abs(reading.x) < 0.01 && abs(reading.z - 0.3) < 0.01)
        try "100\n".write(toFile: folder.path + "/in_accel_x_offset", atomically: true, encoding: .utf8)
        #expect(abs(try IIOAccelerometer(folder: folder.path).read().x - 100 * 0.000598) < 0.001)
    }

    @Test("should say what is wrong with a missing sensor or a file that is not a number")
    func errors() throws {
        #expect {
            try IIOAccelerometer(folder: folder.path + "/iio:device9").read()
        } throws: { error in
            "\(error)".contains("no accelerometer at") && "\(error)".contains("in_accel_x_raw")
        }
        try write(x: 0, y: 9.81, z: 0)
        try "garbage".write(toFile: folder.path + "/in_accel_y_raw", atomically: true, encoding: .utf8)
        #expect {
            try IIOAccelerometer(folder: folder.path).read()
        } throws: { error in
            "\(error)".contains("in_accel_y_raw") && "\(error)".contains("is not a number")
        }
    }

    @Test("should point gravity down the display when upright, sideways when tilted, as the sensor is mounted")
    func gravity() {
        let upright = IIOAccelerometer.Reading(x: 0, y: 9.81, z: 0)
        let sensor = IIOAccelerometer(folder: "")
        let down = sensor.gravity(upright)!
        #expect(abs(down.x) < 1e-9 && abs(down.y - 1) < 1e-9)
        // Tilted to its right: the push has a part towards the left, gravity a part to the right.
        let right = sensor.gravity(.init(x: -4.9, y: 8.5, z: 0))!
        #expect(right.x > 0.4 && right.y > 0.8)
        // Lying flat: no direction in the display's plane.
        #expect(sensor.gravity(.init(x: 0.2, y: 0.3, z: 9.8)) == nil)
        // A sensor turned a quarter clockwise: its x axis points down the display, so at rest it reads the
        // push up the display as -g on x.
        let turned = IIOAccelerometer(folder: "", quarterTurns: 1).gravity(.init(x: -9.81, y: 0, z: 0))!
        #expect(abs(turned.x) < 1e-9 && abs(turned.y - 1) < 1e-9, "\(turned)")
    }

    @Test("should send a tilt when gravity turned, not for noise, and one shake a second")
    func filter() {
        let sensor = IIOAccelerometer(folder: "")
        var filter = MotionFilter()
        let upright = IIOAccelerometer.Reading(x: 0, y: 9.81, z: 0)
        #expect(filter.motions(for: upright, on: sensor, at: .zero) == [.tilt(x: 0, y: 1)])
        #expect(filter.motions(for: .init(x: 0.2, y: 9.8, z: 0.1), on: sensor, at: .milliseconds(50)).isEmpty)
        let tilted = filter.motions(for: .init(x: -4.9, y: 8.5, z: 0), on: sensor, at: .milliseconds(100))
        guard case .tilt(let x, _)? = tilted.first else {
            Issue.record("no tilt: \(tilted)")
            return
        }
        #expect(x > 0.4)
        let shaken = IIOAccelerometer.Reading(x: 12, y: 20, z: 3)
        #expect(filter.motions(for: shaken, on: sensor, at: .milliseconds(200)) == [.shake])
        #expect(filter.motions(for: shaken, on: sensor, at: .milliseconds(600)).isEmpty)
        #expect(filter.motions(for: shaken, on: sensor, at: .milliseconds(1300)) == [.shake])
    }

    @Test("should read tilt and shake words for the simulated station")
    func words() {
        #expect(MotionRelay.motion(forLine: "shake") == .shake)
        #expect(MotionRelay.motion(forLine: "tilt left") == .tilt(x: -0.71, y: 0.71))
        #expect(MotionRelay.motion(forLine: "tilt") == .tilt(x: 0, y: 1))
        #expect(MotionRelay.motion(forLine: "tilt sideways") == nil)
    }
}
