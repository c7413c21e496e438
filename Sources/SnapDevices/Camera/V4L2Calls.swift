import CSnapV4L2
import Foundation

/// An opaque handle from the V4L2 layer: one open capture node.
public struct V4L2Handle: DriverHandle {
    public var raw: UInt
    public init(raw: UInt) { self.raw = raw }
}

/// What a V4L2 node says about itself (VIDIOC_QUERYCAP).
public struct V4L2DeviceInfo: Sendable, Hashable {
    public var driver: String
    public var card: String
    public var busInfo: String
    /// Single-planar video capture with streaming I/O.
    public var capture: Bool
    /// Needs its media-controller pipeline set up first (vimc, a Pi's unicam): libcamera's job, not ours.
    public var mediaController: Bool
    public init(driver: String, card: String, busInfo: String = "", capture: Bool, mediaController: Bool = false) {
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.capture = capture
        self.mediaController = mediaController
    }
}

/// One frame size a format offers: a fixed size, or a range in steps.
public enum V4L2FrameSize: Sendable, Hashable {
    case discrete(width: Int, height: Int)
    case stepwise(width: ClosedRange<Int>, widthStep: Int, height: ClosedRange<Int>, heightStep: Int)
}

/// One pixel format a node offers, with its frame sizes.
public struct V4L2Format: Sendable, Hashable {
    public var fourcc: FourCC
    public var description: String
    public var sizes: [V4L2FrameSize]
    public init(_ fourcc: FourCC, description: String = "", sizes: [V4L2FrameSize]) {
        self.fourcc = fourcc
        self.description = description
        self.sizes = sizes
    }
}

/// A format and size to stream in.
public struct V4L2Mode: Sendable, Hashable, CustomStringConvertible {
    public var format: FourCC
    public var width: Int
    public var height: Int
    public init(_ format: FourCC, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height) \(format)" }
}

/// What the driver set up for a mode: the size may be adjusted, the stride and buffer count are its own.
public struct V4L2Stream: Sendable, Hashable {
    public var mode: V4L2Mode
    public var stride: Int
    public var imageBytes: Int
    public var buffers: Int
    public init(mode: V4L2Mode, stride: Int, imageBytes: Int, buffers: Int) {
        self.mode = mode
        self.stride = stride
        self.imageBytes = imageBytes
        self.buffers = buffers
    }
}

/// One filled buffer of the ring, valid until it is queued again or the stream stops.
public struct V4L2Frame: @unchecked Sendable {
    public var index: Int
    public var data: UnsafePointer<UInt8>
    public var bytesUsed: Int
    /// CLOCK_MONOTONIC, as the driver stamped it.
    public var timestamp: Duration
    public var sequence: Int
    /// The driver flagged the data as possibly damaged (V4L2_BUF_FLAG_ERROR).
    public var damaged: Bool
    public init(
        index: Int, data: UnsafePointer<UInt8>, bytesUsed: Int, timestamp: Duration, sequence: Int,
        damaged: Bool = false
    ) {
        self.index = index
        self.data = data
        self.bytesUsed = bytesUsed
        self.timestamp = timestamp
        self.sequence = sequence
        self.damaged = damaged
    }
}

/// The V4L2 operations the station makes, one per call of the ss_v4l2 shim, as a table tests can replace
/// (see `CameraCalls`). `KernelV4L2` is the real one.
///
/// Why a C shim and not ioctls from Swift: `v4l2_format`, `v4l2_buffer` and `v4l2_frmsizeenum` are unions
/// Swift imports as opaque anonymous members, and the request numbers are `_IOWR` macros Swift cannot
/// import at all; a dozen lines of C per call read better than the same in Swift's pointer dance, and
/// keep the kernel's structs out of Swift entirely.
public protocol V4L2Calls: Sendable {
    /// The video nodes there are (/dev/video*), in numeric order.
    func nodes() -> [String]
    func open(_ path: String) -> Result<(V4L2Handle, V4L2DeviceInfo), DriverFailure>
    func close(_ device: V4L2Handle)
    /// The descriptor to poll: readable when a filled buffer waits, an error when the device is gone.
    func descriptor(_ device: V4L2Handle) -> Int32
    /// Every capture format with its frame sizes (VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES).
    func formats(_ device: V4L2Handle) -> [V4L2Format]
    /// Sets the mode and maps a ring of `buffers` (the device must be stopped).
    func configure(_ device: V4L2Handle, _ mode: V4L2Mode, buffers: Int, framesPerSecond: Int)
        -> Result<V4L2Stream, DriverFailure>
    /// Queues the whole ring and starts streaming.
    func start(_ device: V4L2Handle) -> Result<Void, SystemError>
    /// The next filled buffer; nil when none waits yet.
    func dequeue(_ device: V4L2Handle) -> Result<V4L2Frame?, SystemError>
    /// Gives a buffer back to the driver.
    func queue(_ device: V4L2Handle, index: Int) -> Result<Void, SystemError>
    /// Stops streaming and unmaps the ring.
    func stop(_ device: V4L2Handle)
}

/// The real V4L2 layer: the kernel's ioctls through the ss_v4l2 shim.
public struct KernelV4L2: V4L2Calls {
    /// Where the video nodes are (normally /dev).
    public var devices: String

    public init(devices: String = "/dev") { self.devices = devices }

    public func nodes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []
        return
            names
            .filter { $0.hasPrefix("video") && $0.dropFirst(5).allSatisfy(\.isNumber) && $0.count > 5 }
            .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
            .map { devices + "/" + $0 }
    }

    /// Wraps `ss_v4l2_open`.
    public func open(_ path: String) -> Result<(V4L2Handle, V4L2DeviceInfo), DriverFailure> {
        var device: OpaquePointer?
        var info = ss_v4l2_info()
        var message = [CChar](repeating: 0, count: 256)
        let result = ss_v4l2_open(path, &device, &info, &message, message.count)
        guard result == 0 else { return .failure(DriverFailure(SystemError(negative: result), cString(message))) }
        let details = V4L2DeviceInfo(
            driver: text(info.driver), card: text(info.card), busInfo: text(info.bus_info), capture: info.capture,
            mediaController: info.media_controller)
        return .success((V4L2Handle(device), details))
    }

    /// Wraps `ss_v4l2_close`.
    public func close(_ device: V4L2Handle) { ss_v4l2_close(device.pointer) }

    /// Wraps `ss_v4l2_fd`.
    public func descriptor(_ device: V4L2Handle) -> Int32 { ss_v4l2_fd(device.pointer) }

    /// Wraps `ss_v4l2_format_at` and `ss_v4l2_size_at`, walked to their ends.
    public func formats(_ device: V4L2Handle) -> [V4L2Format] {
        var formats: [V4L2Format] = []
        var format = ss_v4l2_format()
        // 64 formats and 64 sizes each are far beyond any camera; the bound keeps a broken driver finite.
        for index in 0..<64 where formats.count == index {
            guard ss_v4l2_format_at(device.pointer, UInt32(index), &format) == 0 else { break }
            var sizes: [V4L2FrameSize] = []
            var size = ss_v4l2_size()
            for sizeIndex in 0..<64 where sizes.count == sizeIndex {
                guard ss_v4l2_size_at(device.pointer, format.fourcc, UInt32(sizeIndex), &size) == 0 else { break }
                sizes.append(
                    size.discrete
                        ? .discrete(width: Int(size.max_width), height: Int(size.max_height))
                        : .stepwise(
                            width: Int(size.min_width)...Int(max(size.min_width, size.max_width)),
                            widthStep: Int(max(1, size.step_width)),
                            height: Int(size.min_height)...Int(max(size.min_height, size.max_height)),
                            heightStep: Int(max(1, size.step_height))))
                if !size.discrete { break }
            }
            formats.append(
                V4L2Format(FourCC(rawValue: format.fourcc), description: text(format.description), sizes: sizes))
        }
        return formats
    }

    /// Wraps `ss_v4l2_configure`.
    public func configure(_ device: V4L2Handle, _ mode: V4L2Mode, buffers: Int, framesPerSecond: Int)
        -> Result<V4L2Stream, DriverFailure>
    {
        var stream = ss_v4l2_stream()
        stream.fourcc = mode.format.rawValue
        stream.width = UInt32(clamping: mode.width)
        stream.height = UInt32(clamping: mode.height)
        stream.frame_rate = UInt32(clamping: max(0, framesPerSecond))
        stream.buffers = UInt32(clamping: buffers)
        var message = [CChar](repeating: 0, count: 256)
        let result = ss_v4l2_configure(device.pointer, &stream, &message, message.count)
        guard result == 0 else { return .failure(DriverFailure(SystemError(negative: result), cString(message))) }
        return .success(
            V4L2Stream(
                mode: V4L2Mode(FourCC(rawValue: stream.fourcc), width: Int(stream.width), height: Int(stream.height)),
                stride: Int(stream.stride), imageBytes: Int(stream.image_bytes), buffers: Int(stream.buffers)))
    }

    /// Wraps `ss_v4l2_start`.
    public func start(_ device: V4L2Handle) -> Result<Void, SystemError> {
        SystemError.check(ss_v4l2_start(device.pointer))
    }

    /// Wraps `ss_v4l2_dequeue`.
    public func dequeue(_ device: V4L2Handle) -> Result<V4L2Frame?, SystemError> {
        var frame = ss_v4l2_frame()
        let result = ss_v4l2_dequeue(device.pointer, &frame)
        if result == -EAGAIN { return .success(nil) }
        guard result == 0, let data = frame.data else {
            return .failure(SystemError(negative: result < 0 ? result : -EIO))
        }
        return .success(
            V4L2Frame(
                index: Int(frame.index), data: data, bytesUsed: Int(frame.bytes_used),
                timestamp: .nanoseconds(frame.timestamp_ns), sequence: Int(frame.sequence), damaged: frame.damaged))
    }

    /// Wraps `ss_v4l2_queue`.
    public func queue(_ device: V4L2Handle, index: Int) -> Result<Void, SystemError> {
        SystemError.check(ss_v4l2_queue(device.pointer, UInt32(clamping: index)))
    }

    /// Wraps `ss_v4l2_stop`.
    public func stop(_ device: V4L2Handle) { ss_v4l2_stop(device.pointer) }
}
