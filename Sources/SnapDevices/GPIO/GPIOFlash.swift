import SnapCore
import SnapFiles
import Synchronization

/// The flash LED on a GPIO output line. The line is requested once, off, and held while the station runs,
/// so nothing else can grab it between shots. When the chip goes away (a HAT unplugged) setting the line
/// fails and says so; the next `set` requests the line again, so the LED comes back with its chip.
public final class GPIOFlash: FlashLED {
    private struct Held {
        var chip: GPIOChip
        var line: GPIOHandle
    }

    private let descriptor: String
    private let lineName: GPIOLine
    private let calls: any GPIOCalls
    private let held: Lock<Held?>

    public init(chip descriptor: String, line: GPIOLine, calls: any GPIOCalls = LibGPIOD()) throws(DeviceError) {
        self.descriptor = descriptor
        lineName = line
        self.calls = calls
        held = Lock(try Self.request(descriptor, line, calls))
    }

    deinit {
        held.withLock { held in
            if let held { _ = held.chip.calls.setValue(held.line, false) }
        }
    }

    private static func request(_ descriptor: String, _ line: GPIOLine, _ calls: any GPIOCalls) throws(DeviceError)
        -> Held
    {
        let chip = try GPIOChip(descriptor, calls: calls, device: .flash)
        return Held(chip: chip, line: try chip.requestOutput(line, value: false, device: .flash))
    }

    public func set(on: Bool) throws(DeviceError) {
        try held.withLock { held throws(DeviceError) in
            let current: Held
            if let held {
                current = held
            } else {
                current = try Self.request(descriptor, lineName, calls)
                held = current
            }
            if case .failure(let error) = calls.setValue(current.line, on) {
                held = nil  // requested again on the next set: the chip may be back by then
                throw DeviceError(.flash, "GPIO line \(lineName) on \(current.chip.title): \(error)")
            }
        }
    }

    /// What the line is driven to now, read back from the kernel.
    public func isOn() throws(DeviceError) -> Bool {
        try held.withLock { held throws(DeviceError) in
            guard let held else { throw DeviceError(.flash, "GPIO line \(lineName) is not held") }
            switch calls.getValue(held.line) {
            case .success(let value): return value
            case .failure(let error): throw DeviceError(.flash, "GPIO line \(lineName) on \(held.chip.title): \(error)")
            }
        }
    }
}
