import Foundation
import SnapCore
import SnapFiles

/// An accelerometer on the Linux IIO subsystem (an MPU-6050 or ADXL345 on I²C, driven by the kernel):
/// its sysfs folder, `/sys/bus/iio/devices/iio:deviceN`, read as files (`in_accel_x_raw`, …, times
/// `in_accel_scale`, plus `in_accel_x_offset` where the driver has one). The kernel does the bus work;
/// reading a file is all the station does, on the motion thread.
public struct IIOAccelerometer: Sendable {
    /// m/s² along the sensor's axes.
    public struct Reading: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public var z: Double
        public init(x: Double, y: Double, z: Double) { (self.x, self.y, self.z) = (x, y, z) }
        public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
    }

    /// Why a reading failed; the jar then keeps gravity pointing down the display.
    public struct AccelerometerError: Error, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    public let folder: String
    /// How the sensor is turned against the display, in quarter turns clockwise (as `display.rotation`).
    public let quarterTurns: Int

    public init(folder: String, quarterTurns: Int = 0) {
        self.folder = folder
        self.quarterTurns = quarterTurns
    }

    /// One reading of the three axes.
    public func read() throws(AccelerometerError) -> Reading {
        func value(_ name: String) throws(AccelerometerError) -> Double? {
            let path = folder + "/" + name
            guard let bytes = FileBytes.readIfPresent(path) else { return nil }
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let number = Double(text) else {
                throw AccelerometerError("\(path): \"\(text.prefix(40))\" is not a number")
            }
            return number
        }
        func axis(_ name: String) throws(AccelerometerError) -> Double {
            guard let raw = try value("in_accel_\(name)_raw") else {
                throw AccelerometerError("no accelerometer at \(folder) (no in_accel_\(name)_raw)")
            }
            // The axis's own scale and offset where the driver has them, else the shared ones.
            var scale = try value("in_accel_\(name)_scale")
            if scale == nil { scale = try value("in_accel_scale") }
            var offset = try value("in_accel_\(name)_offset")
            if offset == nil { offset = try value("in_accel_offset") }
            let (s, o) = (scale ?? 1, offset ?? 0)
            return (raw + o) * s
        }
        return Reading(x: try axis("x"), y: try axis("y"), z: try axis("z"))
    }

    /// Where gravity points on the display (a unit vector, y down) for `reading`, or nil when the station
    /// lies nearly flat (gravity through the screen: the jar keeps its last direction).
    ///
    /// At rest an accelerometer reads the push that holds it up, so gravity is the reading's opposite;
    /// the sensor's y axis points up the display (as the IIO ABI's axes on a device held upright), and
    /// the display's y points down.
    public func gravity(_ reading: Reading) -> (x: Double, y: Double)? {
        var (x, y) = (-reading.x, reading.y)
        for _ in 0..<((quarterTurns % 4 + 4) % 4) { (x, y) = (-y, x) }
        let length = (x * x + y * y).squareRoot()
        guard length > 0.35 * max(reading.magnitude, 0.001) else { return nil }
        return (x / length, y / length)
    }
}

/// Turns accelerometer readings into the jar's motion: a tilt when gravity turned by more than a few
/// degrees, a shake when the push differs from gravity by more than `shakeThreshold` (at most one a
/// second). Pure: the motion service feeds it readings with their time.
public struct MotionFilter: Sendable {
    public static let gravity = 9.81
    public var shakeThreshold = 6.0
    /// The smallest turn (radians) that is sent as a new tilt.
    public var minimumTurn = 0.08
    private var lastTilt: (x: Double, y: Double)?
    private var lastShake: Duration?

    public init() {}

    public mutating func motions(
        for reading: IIOAccelerometer.Reading, on sensor: IIOAccelerometer, at uptime: Duration
    ) -> [JarMotion] {
        var motions: [JarMotion] = []
        if abs(reading.magnitude - Self.gravity) > shakeThreshold {
            if lastShake.map({ uptime - $0 >= .seconds(1) }) ?? true {
                lastShake = uptime
                motions.append(.shake)
            }
            return motions  // a shaken sensor says nothing of the tilt
        }
        if let down = sensor.gravity(reading) {
            let turned = lastTilt.map { abs(atan2($0.x * down.y - $0.y * down.x, $0.x * down.x + $0.y * down.y)) }
            if turned.map({ $0 >= minimumTurn }) ?? true {
                lastTilt = down
                motions.append(.tilt(x: down.x, y: down.y))
            }
        }
        return motions
    }
}
