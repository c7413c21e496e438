import Foundation
import Logging
import SnapCore

/// How the buttons are wired.
public struct GPIOButtonSettings: Sendable, Hashable {
    public var chip: String
    public var shutter: GPIOLine
    public var mode: GPIOLine?
    public var activeLow: Bool
    public var bias: LineBias
    public var debounce: Duration
    public var longPress: Duration

    public init(
        chip: String, shutter: GPIOLine, mode: GPIOLine? = nil, activeLow: Bool = true, bias: LineBias = .pullUp,
        debounce: Duration = .milliseconds(30), longPress: Duration = .milliseconds(800)
    ) {
        self.chip = chip
        self.shutter = shutter
        self.mode = mode
        self.activeLow = activeLow
        self.bias = bias
        self.debounce = debounce
        self.longPress = longPress
    }
}

/// The shutter (and mode) buttons on GPIO input lines, read through libgpiod.
///
/// Edges carry the kernel's timestamps, so a loaded CPU does not stretch a press into a hold. The kernel
/// debounces where it can (libgpiod v2); on v1 the `PressRecognizer` drops the bounce. A hold fires while
/// the button is still down. The lines are read on their own thread, asleep in poll(2) between edges.
public struct GPIOButtons: Buttons {
    /// Lines whose chip goes away end the gestures; the button service opens them again.
    public var reopensWhenLost: Bool { true }

    public var settings: GPIOButtonSettings
    private let calls: any GPIOCalls
    private let logger: Logger

    public init(settings: GPIOButtonSettings, calls: any GPIOCalls = LibGPIOD(), logger: Logger) {
        self.settings = settings
        self.calls = calls
        self.logger = logger
    }

    public func gestures() throws(DeviceError) -> AsyncStream<ButtonGesture> {
        let chip = try GPIOChip(settings.chip, calls: calls, device: .buttons)
        let kernelDebounce = calls.kernelDebounce
        var lines: [(handle: GPIOHandle, gestures: (press: ButtonGesture, hold: ButtonGesture))] = []
        for (line, gestures) in [(settings.shutter, (ButtonGesture.press, ButtonGesture.hold))]
            + (settings.mode.map { [($0, (ButtonGesture.mode, ButtonGesture.mode))] } ?? [])
        {
            let handle = try chip.requestInput(
                line, bias: settings.bias, activeLow: settings.activeLow,
                debounce: kernelDebounce ? settings.debounce : .zero, device: .buttons)
            lines.append((handle, gestures))
        }
        let poll: WakeablePoll
        do { poll = try WakeablePoll() } catch { throw DeviceError(.buttons, "cannot wait for GPIO edges: \(error)") }
        logger.info(
            "buttons on \(chip.title): shutter \(settings.shutter)\(settings.mode.map { ", mode \($0)" } ?? "")",
            metadata: ["libgpiod": "v\(calls.apiVersion)", "debounce": "\(kernelDebounce ? "kernel" : "software")"])

        let (stream, continuation) = AsyncStream<ButtonGesture>.makeStream()
        let recognizer = PressRecognizer(
            longPress: settings.longPress, debounce: kernelDebounce ? .zero : settings.debounce)
        let reader = EdgeReader(
            chip: chip, lines: lines.map { EdgeReader.Line(handle: $0.handle, gestures: $0.gestures) },
            recognizer: recognizer, poll: poll, logger: logger)
        let thread = Thread {
            reader.run(yield: { continuation.yield($0) })
            continuation.finish()
        }
        thread.name = "gpio-buttons"
        continuation.onTermination = { _ in poll.wake() }
        thread.start()
        return stream
    }
}

/// The loop on the button thread: edges in, gestures out.
private struct EdgeReader: Sendable {
    struct Line: Sendable {
        var handle: GPIOHandle
        var gestures: (press: ButtonGesture, hold: ButtonGesture)
    }

    let chip: GPIOChip
    let lines: [Line]
    let recognizer: PressRecognizer
    let poll: WakeablePoll
    let logger: Logger

    func run(yield: (ButtonGesture) -> Void) {
        var recognizers = [PressRecognizer](repeating: recognizer, count: lines.count)
        let descriptors = lines.map { chip.calls.eventDescriptor($0.handle) }
        // Timestamps must not run backwards (seen under emulation): a late edge counts as "now".
        var latest = Duration.zero
        func emit(_ gesture: ButtonGesture?, line: Int) {
            guard let gesture else { return }
            switch gesture {
            case .pairHold: yield(.pairHold)  // the mode button kept down pairs too
            case .hold: yield(lines[line].gestures.hold)
            default: yield(lines[line].gestures.press)
            }
        }
        while true {
            // At least every 2 s: a chip taken away (a HAT unplugged, gpio-sim made not live) wakes no
            // sleeper on older kernels, but a new poll of its lines reports the hang-up at once.
            let hold = recognizers.compactMap(\.holdDeadline).min().map { $0 - MonotonicClock.now() }
            let outcome: WakeablePoll.Outcome
            do {
                outcome = try poll.wait(for: descriptors, timeout: min(hold ?? .seconds(2), .seconds(2)))
            } catch {
                logger.error("GPIO buttons on \(chip.title) stopped: \(error)")
                return
            }
            switch outcome {
            case .woken:
                return
            case .timedOut:
                break
            case .ready(let ready):
                for index in ready {
                    switch chip.calls.readEdges(lines[index].handle) {
                    case .success(let edges):
                        for edge in edges {
                            latest = max(latest, edge.timestamp)
                            emit(recognizers[index].edge(down: edge.active, at: latest), line: index)
                        }
                    case .failure(let error):
                        logger.error("GPIO buttons on \(chip.title) stopped: \(error)")
                        return
                    }
                }
            }
            let now = max(latest, MonotonicClock.now())
            for index in recognizers.indices { emit(recognizers[index].poll(at: now), line: index) }
        }
    }
}

extension GPIOButtons {
    /// Opens the chip and requests the lines, then lets them go: proves the wiring's names are right and
    /// the lines are free. Returns what was found, such as "gpiochip0 (pinctrl-bcm2711): shutter GPIO17".
    public func check() throws(DeviceError) -> String {
        let chip = try GPIOChip(settings.chip, calls: calls, device: .buttons)
        var found: [String] = []
        for (role, line) in [("shutter", settings.shutter)] + (settings.mode.map { [("mode", $0)] } ?? []) {
            let offset = try chip.offset(of: line, device: .buttons)
            _ = try chip.requestInput(
                line, bias: settings.bias, activeLow: settings.activeLow, debounce: .zero, device: .buttons)
            found.append("\(role) \(line)" + (line == .offset(offset) ? "" : " (offset \(offset))"))
        }
        return "\(chip.title): " + found.joined(separator: ", ")
    }
}
