import CSnapGPIO
import SnapCore

/// An opaque handle from the GPIO layer: a chip or a requested line.
public struct GPIOHandle: DriverHandle {
    public var raw: UInt
    public init(raw: UInt) { self.raw = raw }
}

/// What the kernel reports about a chip.
public struct GPIOChipInfo: Sendable, Hashable {
    public var name: String
    public var label: String
    public var lineCount: Int
    public init(name: String, label: String, lineCount: Int) {
        self.name = name
        self.label = label
        self.lineCount = lineCount
    }
}

/// What the kernel reports about one line.
public struct GPIOLineInfo: Sendable, Hashable {
    public var name: String
    /// Who holds the line; "" when nobody does.
    public var consumer: String
    public var used: Bool
    public var output: Bool
    public init(name: String, consumer: String = "", used: Bool = false, output: Bool = false) {
        self.name = name
        self.consumer = consumer
        self.used = used
        self.output = output
    }
}

/// One edge on an input line.
public struct GPIOEdge: Sendable, Hashable {
    /// True for a change to active (pressed, with active-low applied).
    public var active: Bool
    /// The kernel's CLOCK_MONOTONIC timestamp.
    public var timestamp: Duration
    public init(active: Bool, timestamp: Duration) {
        self.active = active
        self.timestamp = timestamp
    }
}

extension LineBias {
    /// The shim's SS_GPIO_BIAS_* value.
    var shimValue: Int32 {
        switch self {
        case .asIs: 0
        case .disabled: 1
        case .pullUp: 2
        case .pullDown: 3
        }
    }
}

/// The GPIO operations the station makes, one per call of the C shim.
///
/// The drivers take this table instead of calling C directly, so unit tests can stand in for the kernel
/// and reach every error path (the way swift-system mocks its syscalls). `LibGPIOD` is the real one.
public protocol GPIOCalls: Sendable {
    /// 1 or 2: the libgpiod major version underneath.
    var apiVersion: Int { get }
    /// Whether the kernel debounces inputs (libgpiod v2); otherwise the driver does it in software.
    var kernelDebounce: Bool { get }
    func openChip(_ descriptor: String) -> Result<GPIOHandle, SystemError>
    func closeChip(_ chip: GPIOHandle)
    func chipInfo(_ chip: GPIOHandle) -> GPIOChipInfo
    func lineInfo(_ chip: GPIOHandle, offset: Int) -> Result<GPIOLineInfo, SystemError>
    func findLine(_ chip: GPIOHandle, name: String) -> Result<Int, SystemError>
    func requestInput(
        _ chip: GPIOHandle, offset: Int, consumer: String, bias: LineBias, activeLow: Bool, debounce: Duration
    ) -> Result<GPIOHandle, SystemError>
    func requestOutput(_ chip: GPIOHandle, offset: Int, consumer: String, value: Bool) -> Result<
        GPIOHandle, SystemError
    >
    func release(_ line: GPIOHandle)
    /// The descriptor that becomes readable when edges wait on `line`.
    func eventDescriptor(_ line: GPIOHandle) -> Int32
    /// The edges waiting on `line` (call when its descriptor is readable).
    func readEdges(_ line: GPIOHandle) -> Result<[GPIOEdge], SystemError>
    func setValue(_ line: GPIOHandle, _ value: Bool) -> Result<Void, SystemError>
    func getValue(_ line: GPIOHandle) -> Result<Bool, SystemError>
}

/// The real GPIO layer: libgpiod through the ss_gpio shim.
public struct LibGPIOD: GPIOCalls {
    public init() {}

    public var apiVersion: Int { Int(ss_gpio_api_version()) }
    public var kernelDebounce: Bool { ss_gpio_kernel_debounce() }

    public func openChip(_ descriptor: String) -> Result<GPIOHandle, SystemError> {
        var chip: OpaquePointer?
        return SystemError.check(ss_gpio_chip_open(descriptor, &chip)).map { GPIOHandle(chip) }
    }

    public func closeChip(_ chip: GPIOHandle) { ss_gpio_chip_close(chip.pointer) }

    public func chipInfo(_ chip: GPIOHandle) -> GPIOChipInfo {
        GPIOChipInfo(
            name: String(cString: ss_gpio_chip_name(chip.pointer)),
            label: String(cString: ss_gpio_chip_label(chip.pointer)),
            lineCount: Int(ss_gpio_chip_line_count(chip.pointer)))
    }

    public func lineInfo(_ chip: GPIOHandle, offset: Int) -> Result<GPIOLineInfo, SystemError> {
        var info = ss_gpio_line_info()
        return SystemError.check(ss_gpio_line_info_get(chip.pointer, UInt32(offset), &info)).map {
            GPIOLineInfo(
                name: text(info.name), consumer: text(info.consumer),
                used: info.used, output: info.output)
        }
    }

    public func findLine(_ chip: GPIOHandle, name: String) -> Result<Int, SystemError> {
        let result = ss_gpio_find_line(chip.pointer, name)
        return SystemError.check(result).map { Int(result) }
    }

    public func requestInput(
        _ chip: GPIOHandle, offset: Int, consumer: String, bias: LineBias, activeLow: Bool, debounce: Duration
    ) -> Result<GPIOHandle, SystemError> {
        var line: OpaquePointer?
        let microseconds = UInt32(clamping: Int64(debounce.seconds * 1_000_000))
        return SystemError.check(
            ss_gpio_request_input(
                chip.pointer, UInt32(offset), consumer, bias.shimValue, activeLow, microseconds, &line)
        ).map { GPIOHandle(line) }
    }

    public func requestOutput(_ chip: GPIOHandle, offset: Int, consumer: String, value: Bool)
        -> Result<GPIOHandle, SystemError>
    {
        var line: OpaquePointer?
        return SystemError.check(ss_gpio_request_output(chip.pointer, UInt32(offset), consumer, value ? 1 : 0, &line))
            .map {
                GPIOHandle(line)
            }
    }

    public func release(_ line: GPIOHandle) { ss_gpio_line_release(line.pointer) }

    public func eventDescriptor(_ line: GPIOHandle) -> Int32 { ss_gpio_line_fd(line.pointer) }

    public func readEdges(_ line: GPIOHandle) -> Result<[GPIOEdge], SystemError> {
        var events = [ss_gpio_event](repeating: ss_gpio_event(), count: 16)
        let count = ss_gpio_read_events(line.pointer, &events, Int32(events.count))
        return SystemError.check(count).map {
            events.prefix(Int(count)).map {
                GPIOEdge(active: $0.active, timestamp: .nanoseconds(Int64(clamping: $0.timestamp_ns)))
            }
        }
    }

    public func setValue(_ line: GPIOHandle, _ value: Bool) -> Result<Void, SystemError> {
        SystemError.check(ss_gpio_set_value(line.pointer, value ? 1 : 0))
    }

    public func getValue(_ line: GPIOHandle) -> Result<Bool, SystemError> {
        let result = ss_gpio_get_value(line.pointer)
        return SystemError.check(result).map { result == 1 }
    }
}
