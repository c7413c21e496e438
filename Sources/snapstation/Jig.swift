import ArgumentParser
import Foundation
import SnapCore
import SnapDevices

extension SnapStation {
    struct Jig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "jig",
            abstract: "Drive and read the hardware-in-the-loop jig's GPIO lines (board/hil-jig.md).",
            discussion: """
                Used by Tests/HIL/scenarios.sh on a Raspberry Pi, through the station's own GPIO layer, so the \
                same command works with libgpiod v1 and v2. Lines by name (GPIO5) or offset.
                """,
            shouldDisplay: false)

        @Option(help: "The GPIO chip.") var chip = "gpiochip0"
        @Option(help: "Drive this line low for --ms milliseconds, then let it go (a button press).") var pulse: String?
        @Option(help: "How long a pulse lasts.") var ms = 200
        @Option(help: "Pulses in a row, --gap milliseconds apart (contact bounce).") var count = 1
        @Option(help: "Milliseconds between pulses.") var gap = 2
        @Option(help: "Print 1 or 0: the level of this input line.") var read: String?

        func run() throws {
            let calls = LibGPIOD()
            guard case .success(let handle) = calls.openChip(chip) else {
                throw ValidationError("no GPIO chip \(chip)")
            }
            defer { calls.closeChip(handle) }
            func offset(_ text: String) throws -> Int {
                if let number = Int(text) { return number }
                guard case .success(let offset) = calls.findLine(handle, name: text) else {
                    throw ValidationError("no line \(text) on \(chip)")
                }
                return offset
            }
            if let pulse {
                let line = try offset(pulse)
                for index in 0..<max(1, count) {
                    // Low while requested, then released: the pull-up (or the station's bias) takes it back.
                    guard
                        case .success(let output) = calls.requestOutput(
                            handle, offset: line, consumer: "jig", value: false)
                    else { throw ValidationError("cannot drive \(pulse): is it free?") }
                    usleep(useconds_t(ms * 1000))
                    _ = calls.setValue(output, true)
                    calls.release(output)
                    if index + 1 < count { usleep(useconds_t(gap * 1000)) }
                }
            }
            if let read {
                guard
                    case .success(let input) = calls.requestInput(
                        handle, offset: try offset(read), consumer: "jig", bias: .asIs, activeLow: false,
                        debounce: .zero)
                else { throw ValidationError("cannot read \(read): is it free?") }
                defer { calls.release(input) }
                guard case .success(let value) = calls.getValue(input) else {
                    throw ValidationError("cannot read \(read)")
                }
                print(value ? 1 : 0)
            }
        }
    }
}
