import SnapCore

/// One open GPIO chip, and the lines requested on it, released in the right order.
///
/// libgpiod v1 frees a chip's lines when the chip closes, so lines always go first. Every failure becomes a
/// `DeviceError` that names the chip and the line, because the person reading it is wiring a board.
final class GPIOChip: Sendable {
    let calls: any GPIOCalls
    let handle: GPIOHandle
    let info: GPIOChipInfo
    /// The chip as the config named it.
    let descriptor: String
    private let lines: LockedList<GPIOHandle>

    init(_ descriptor: String, calls: any GPIOCalls, device: DeviceKind) throws(DeviceError) {
        switch calls.openChip(descriptor) {
        case .success(let handle):
            self.handle = handle
        case .failure(let error):
            throw DeviceError(device, Self.openProblem(descriptor, error))
        }
        self.calls = calls
        self.descriptor = descriptor
        self.info = calls.chipInfo(handle)
        self.lines = LockedList()
    }

    deinit {
        for line in lines.removeAll() { calls.release(line) }
        calls.closeChip(handle)
    }

    static func openProblem(_ descriptor: String, _ error: SystemError) -> String {
        switch error {
        case .noEntry: "GPIO chip \"\(descriptor)\" not found; `snapstation selftest` lists the chips there are"
        case .accessDenied:
            "GPIO chip \"\(descriptor)\": \(error); the station's user needs the gpio group (see systemd/)"
        default: "GPIO chip \"\(descriptor)\": \(error)"
        }
    }

    /// "gpiochip0 (pinctrl-bcm2711)".
    var title: String { info.label.isEmpty ? info.name : "\(info.name) (\(info.label))" }

    /// The offset of `line`, checked against the chip.
    func offset(of line: GPIOLine, device: DeviceKind) throws(DeviceError) -> Int {
        switch line {
        case .offset(let offset):
            guard offset >= 0, offset < info.lineCount else {
                throw DeviceError(
                    device, "GPIO line offset \(offset) is not on \(title), which has lines 0–\(info.lineCount - 1)")
            }
            return offset
        case .name(let name):
            switch calls.findLine(handle, name: name) {
            case .success(let offset): return offset
            case .failure(.noEntry):
                throw DeviceError(
                    device, "GPIO line \"\(name)\" not found on \(title); `snapstation selftest` lists its lines")
            case .failure(let error):
                throw DeviceError(device, "GPIO line \"\(name)\" on \(title): \(error)")
            }
        }
    }

    func requestInput(_ line: GPIOLine, bias: LineBias, activeLow: Bool, debounce: Duration, device: DeviceKind)
        throws(DeviceError) -> GPIOHandle
    {
        let offset = try offset(of: line, device: device)
        let result = calls.requestInput(
            handle, offset: offset, consumer: "snapstation", bias: bias, activeLow: activeLow, debounce: debounce)
        return try keep(result, line: line, offset: offset, device: device)
    }

    func requestOutput(_ line: GPIOLine, value: Bool, device: DeviceKind) throws(DeviceError) -> GPIOHandle {
        let offset = try offset(of: line, device: device)
        let result = calls.requestOutput(handle, offset: offset, consumer: "snapstation", value: value)
        return try keep(result, line: line, offset: offset, device: device)
    }

    private func keep(_ result: Result<GPIOHandle, SystemError>, line: GPIOLine, offset: Int, device: DeviceKind)
        throws(DeviceError) -> GPIOHandle
    {
        let name =
            line.description == "offset \(offset)" ? "GPIO line \(offset)" : "GPIO line \(line) (offset \(offset))"
        switch result {
        case .success(let requested):
            lines.append(requested)
            return requested
        case .failure(.busy):
            let holder = (try? calls.lineInfo(handle, offset: offset).get())?.consumer ?? ""
            throw DeviceError(
                device, "\(name) on \(title) is busy" + (holder.isEmpty ? "" : ": held by \"\(holder)\""))
        case .failure(let error):
            throw DeviceError(device, "\(name) on \(title): \(error)")
        }
    }
}
