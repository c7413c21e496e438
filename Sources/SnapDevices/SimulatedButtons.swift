import Foundation
import Logging
import SnapCore

/// The embedded default buttons: words typed on standard input, and an optional timed script.
///
/// Standard input is read on its own thread, because a blocking read must not hold one of the few
/// threads of Swift's cooperative pool. Lines are `press` (or `p`), `hold` (`h`) and `mode` (`m`);
/// anything else is logged and ignored. When standard input closes, the script (if any) goes on.
public struct SimulatedButtons: Buttons {
    public var script: ButtonScript
    public var readStandardInput: Bool
    /// Where `tilt` and `shake` typed on standard input go.
    public var motion: MotionRelay?
    private let logger: Logger

    public init(script: ButtonScript, readStandardInput: Bool, motion: MotionRelay? = nil, logger: Logger) {
        self.script = script
        self.readStandardInput = readStandardInput
        self.motion = motion
        self.logger = logger
    }

    /// The gesture a typed line stands for.
    public static func gesture(forLine line: String) -> ButtonGesture? {
        switch line.trimmingCharacters(in: .whitespaces).lowercased() {
        case "press", "p", "": .press
        case "hold", "h", "long": .hold
        case "mode", "m": .mode
        case "pair": .pairHold
        default: nil
        }
    }

    public func gestures() throws(DeviceError) -> AsyncStream<ButtonGesture> {
        let (stream, continuation) = AsyncStream<ButtonGesture>.makeStream()
        let (logger, motion) = (logger, motion)
        if readStandardInput {
            let thread = Thread {
                while let line = readLine() {
                    if let gesture = Self.gesture(forLine: line) {
                        continuation.yield(gesture)
                    } else if let motion, let moved = MotionRelay.motion(forLine: line) {
                        logger.info("motion: \(line)")
                        motion.send(moved)
                    } else {
                        logger.notice(
                            "unknown button word \"\(line)\": type press, hold, mode, pair, tilt left, tilt right or shake"
                        )
                    }
                }
            }
            thread.name = "stdin-buttons"
            thread.start()
        }
        let steps = script.steps
        let player = Task {
            for step in steps {
                try? await Task.sleep(for: step.delay)
                if Task.isCancelled { return }
                logger.info("script: \(step.gesture.rawValue)")
                continuation.yield(step.gesture)
            }
        }
        continuation.onTermination = { _ in player.cancel() }
        return stream
    }
}

/// The embedded default flash LED: its state goes to the log.
public struct SimulatedFlash: FlashLED {
    private let logger: Logger
    public init(logger: Logger) { self.logger = logger }
    public func set(on: Bool) throws(DeviceError) {
        logger.info("flash LED \(on ? "on" : "off")", metadata: ["device": "flash"])
    }
}
