import SnapCore
import SnapFiles
import Synchronization

/// Carries the jar's motion (a tilt, a shake) from where it is sensed (the accelerometer, or words typed
/// to the simulated station) to the display, which owns the jar. Made before the display exists; the
/// display connects to it when it is made, and motion before that is dropped.
public final class MotionRelay: Sendable {
    private let receiver = Lock<(@Sendable (JarMotion) -> Void)?>(nil)

    public init() {}

    public func connect(_ receive: @escaping @Sendable (JarMotion) -> Void) {
        receiver.withLock { $0 = receive }
    }

    public func send(_ motion: JarMotion) {
        receiver.withLock { $0 }?(motion)
    }

    /// The motion a typed line stands for: `shake`, `tilt left`, `tilt right`, `tilt` (level again).
    public static func motion(forLine line: String) -> JarMotion? {
        let words = line.lowercased().split(separator: " ")
        switch (words.first, words.dropFirst().first) {
        case ("shake", nil): return .shake
        case ("tilt", nil), ("tilt", "level"): return .tilt(x: 0, y: 1)
        case ("tilt", "left"): return .tilt(x: -0.71, y: 0.71)
        case ("tilt", "right"): return .tilt(x: 0.71, y: 0.71)
        default: return nil
        }
    }
}
