import SnapCore

/// The flash LED on a GPIO output line. The line is requested once, off, and held while the station runs,
/// so nothing else can grab it between shots.
public final class GPIOFlash: FlashLED {
    private let chip: GPIOChip
    private let line: GPIOHandle
    private let name: String

    public init(chip descriptor: String, line: GPIOLine, calls: any GPIOCalls = LibGPIOD()) throws(DeviceError) {
        chip = try GPIOChip(descriptor, calls: calls, device: .flash)
        self.line = try chip.requestOutput(line, value: false, device: .flash)
        name = "GPIO line \(line) on \(chip.title)"
    }

    deinit { _ = chip.calls.setValue(line, false) }

    public func set(on: Bool) throws(DeviceError) {
        if case .failure(let error) = chip.calls.setValue(line, on) {
            throw DeviceError(.flash, "\(name): \(error)")
        }
    }

    /// What the line is driven to now, read back from the kernel.
    public func isOn() throws(DeviceError) -> Bool {
        switch chip.calls.getValue(line) {
        case .success(let value): return value
        case .failure(let error): throw DeviceError(.flash, "\(name): \(error)")
        }
    }
}
