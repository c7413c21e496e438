import Foundation
import SnapCore
import SnapDevices
import SnapFiles
import Synchronization

/// A GPIO layer in memory that stands in for the kernel: chips, lines, consumers and edges.
///
/// Each requested input gets a real pipe, so the driver's poll(2) wakes exactly as it would on a line
/// request's descriptor; `press`-style helpers queue edges and make the pipe readable.
final class MockGPIO: GPIOCalls {
    struct Chip {
        var info: GPIOChipInfo
        var lines: [GPIOLineInfo]
        var path: String { "/dev/" + info.name }
    }

    struct Request: Equatable {
        var chip: String
        var offset: Int
        var output: Bool
        var bias: LineBias?
        var activeLow: Bool?
        var debounce: Duration?
        var consumer: String
    }

    struct State {
        var chips: [String: Chip] = [:]
        var openError: SystemError?
        var nextHandle: UInt = 0x100
        var openChips: [GPIOHandle: String] = [:]
        var requests: [GPIOHandle: Request] = [:]
        var pipes: [GPIOHandle: (read: Int32, write: Int32)] = [:]
        var queued: [GPIOHandle: [GPIOEdge]] = [:]
        var values: [GPIOHandle: Bool] = [:]
        var readError: SystemError?
        var setError: SystemError?
        var released: [Request] = []
        var closed: [String] = []
    }

    let state = Lock(State())
    let apiVersion: Int
    var kernelDebounce: Bool { apiVersion == 2 }

    /// `chips`: name → (label, line names). A line name "busy:CONSUMER:NAME" is held by CONSUMER.
    init(apiVersion: Int = 1, chips: [String: (label: String, lines: [String])]) {
        self.apiVersion = apiVersion
        state.withLock { state in
            for (name, chip) in chips {
                let lines = chip.lines.map { line -> GPIOLineInfo in
                    let parts = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                    if parts.count == 3, parts[0] == "busy" {
                        return GPIOLineInfo(name: parts[2], consumer: parts[1], used: true)
                    }
                    return GPIOLineInfo(name: line)
                }
                state.chips[name] = Chip(
                    info: GPIOChipInfo(name: name, label: chip.label, lineCount: lines.count), lines: lines)
            }
        }
    }

    /// A Pi-like chip: gpiochip0 labelled pinctrl-bcm2711 with lines GPIO0…GPIO27.
    static func pi(apiVersion: Int = 1, busy: [Int: String] = [:]) -> MockGPIO {
        MockGPIO(
            apiVersion: apiVersion,
            chips: [
                "gpiochip0": (
                    "pinctrl-bcm2711",
                    (0..<28).map { line in busy[line].map { "busy:\($0):GPIO\(line)" } ?? "GPIO\(line)" }
                )
            ])
    }

    private func newHandle(_ state: inout State) -> GPIOHandle {
        state.nextHandle += 0x10
        return GPIOHandle(raw: state.nextHandle)
    }

    func openChip(_ descriptor: String) -> Result<GPIOHandle, SystemError> {
        state.withLock { state in
            if let error = state.openError { return .failure(error) }
            guard
                let chip = state.chips.values.first(where: {
                    [$0.info.name, $0.info.label, $0.path].contains(descriptor)
                        || descriptor.hasSuffix("/" + $0.info.name)
                })
            else { return .failure(.noEntry) }
            let handle = newHandle(&state)
            state.openChips[handle] = chip.info.name
            return .success(handle)
        }
    }

    func closeChip(_ chip: GPIOHandle) {
        state.withLock { state in
            if let name = state.openChips.removeValue(forKey: chip) { state.closed.append(name) }
        }
    }

    private func chip(_ handle: GPIOHandle, _ state: State) -> Chip { state.chips[state.openChips[handle]!]! }

    func chipInfo(_ chip: GPIOHandle) -> GPIOChipInfo { state.withLock { self.chip(chip, $0).info } }

    func lineInfo(_ chip: GPIOHandle, offset: Int) -> Result<GPIOLineInfo, SystemError> {
        state.withLock { state in
            let lines = self.chip(chip, state).lines
            return lines.indices.contains(offset) ? .success(lines[offset]) : .failure(SystemError(EINVAL))
        }
    }

    func findLine(_ chip: GPIOHandle, name: String) -> Result<Int, SystemError> {
        state.withLock { state in
            self.chip(chip, state).lines.firstIndex { $0.name == name }.map { .success($0) } ?? .failure(.noEntry)
        }
    }

    private func request(_ chip: GPIOHandle, _ request: Request) -> Result<GPIOHandle, SystemError> {
        state.withLock { state in
            let name = state.openChips[chip]!
            guard state.chips[name]!.lines.indices.contains(request.offset) else {
                return .failure(SystemError(EINVAL))
            }
            if state.chips[name]!.lines[request.offset].used { return .failure(.busy) }
            state.chips[name]!.lines[request.offset].used = true
            state.chips[name]!.lines[request.offset].consumer = request.consumer
            let handle = newHandle(&state)
            state.requests[handle] = request
            if !request.output {
                var ends: [Int32] = [0, 0]
                _ = pipe(&ends)
                _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
                state.pipes[handle] = (ends[0], ends[1])
            }
            return .success(handle)
        }
    }

    func requestInput(
        _ chip: GPIOHandle, offset: Int, consumer: String, bias: LineBias, activeLow: Bool, debounce: Duration
    ) -> Result<GPIOHandle, SystemError> {
        let name = state.withLock { $0.openChips[chip]! }
        return request(
            chip,
            Request(
                chip: name, offset: offset, output: false, bias: bias, activeLow: activeLow, debounce: debounce,
                consumer: consumer))
    }

    func requestOutput(_ chip: GPIOHandle, offset: Int, consumer: String, value: Bool)
        -> Result<GPIOHandle, SystemError>
    {
        let name = state.withLock { $0.openChips[chip]! }
        let result = request(chip, Request(chip: name, offset: offset, output: true, consumer: consumer))
        if case .success(let handle) = result { state.withLock { $0.values[handle] = value } }
        return result
    }

    func release(_ line: GPIOHandle) {
        state.withLock { state in
            guard let request = state.requests.removeValue(forKey: line) else { return }
            state.chips[request.chip]!.lines[request.offset].used = false
            state.chips[request.chip]!.lines[request.offset].consumer = ""
            if let ends = state.pipes.removeValue(forKey: line) {
                close(ends.read)
                close(ends.write)
            }
            state.released.append(request)
        }
    }

    func eventDescriptor(_ line: GPIOHandle) -> Int32 { state.withLock { $0.pipes[line]?.read ?? -1 } }

    func readEdges(_ line: GPIOHandle) -> Result<[GPIOEdge], SystemError> {
        state.withLock { state in
            if let error = state.readError { return .failure(error) }
            var byte: UInt8 = 0
            while read(state.pipes[line]!.read, &byte, 1) == 1 {}
            defer { state.queued[line] = [] }
            return .success(state.queued[line] ?? [])
        }
    }

    func setValue(_ line: GPIOHandle, _ value: Bool) -> Result<Void, SystemError> {
        state.withLock { state in
            if let error = state.setError { return .failure(error) }
            state.values[line] = value
            return .success(())
        }
    }

    func getValue(_ line: GPIOHandle) -> Result<Bool, SystemError> {
        state.withLock { .success($0.values[line] ?? false) }
    }

    // MARK: Driving the mock

    /// The request made for `offset`, whether the line is still held or already released.
    func request(offset: Int) -> Request? {
        state.withLock { state in
            state.requests.values.first { $0.offset == offset } ?? state.released.last { $0.offset == offset }
        }
    }

    /// The handle of the requested line at `offset`.
    func handle(offset: Int) -> GPIOHandle? {
        state.withLock { state in state.requests.first { $0.value.offset == offset }?.key }
    }

    /// Queues edges on the input at `offset`, `(active, milliseconds after now)`, and wakes its reader.
    func edges(offset: Int, _ edges: [(Bool, Int)]) {
        let now = MonotonicClock.now()
        state.withLock { state in
            guard let handle = state.requests.first(where: { $0.value.offset == offset })?.key else { return }
            state.queued[handle, default: []] += edges.map {
                GPIOEdge(active: $0.0, timestamp: now + .milliseconds($0.1))
            }
            var byte: UInt8 = 1
            _ = write(state.pipes[handle]!.write, &byte, 1)
        }
    }

    /// The value an output at `offset` is driven to.
    func value(offset: Int) -> Bool? {
        state.withLock { state in
            state.requests.first { $0.value.offset == offset && $0.value.output }.flatMap { state.values[$0.key] }
        }
    }

    func failReads(with error: SystemError) {
        state.withLock { $0.readError = error }
        if let handle = state.withLock({ $0.pipes.keys.first }) {
            _ = state.withLock { state in
                var byte: UInt8 = 1
                return write(state.pipes[handle]!.write, &byte, 1)
            }
        }
    }
}
