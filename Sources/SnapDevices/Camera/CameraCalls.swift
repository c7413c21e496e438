import CSnapCamera
import SnapFiles
import Synchronization

/// An opaque handle from the camera layer: the camera manager or an open camera.
public struct CameraHandle: DriverHandle {
    public var raw: UInt
    public init(raw: UInt) { self.raw = raw }
}

/// A pixel format as a DRM fourcc, the way libcamera names formats.
public struct FourCC: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ text: String) {
        rawValue = text.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }
    public static let xrgb8888 = FourCC("XR24")
    public static let nv12 = FourCC("NV12")
    public static let yuv420 = FourCC("YU12")
    public static let yuyv = FourCC("YUYV")
    public static let rgb888 = FourCC("RG24")
    public static let bgr888 = FourCC("BG24")
    public static let mjpeg = FourCC("MJPG")

    public var description: String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }, as: UTF8.self)
    }
}

/// One camera as the library lists it.
public struct CameraInfo: Sendable, Hashable {
    public enum Location: Int, Sendable {
        case unknown = -1
        case front, back, external
    }
    public var id: String
    public var model: String
    public var location: Location
    public var width: Int
    public var height: Int
    public var formats: [FourCC]
    public var autofocus: Bool
    public var autoExposure: Bool
    /// Preview and still streams can run together (zero shutter lag).
    public var stillWithPreview: Bool
    public init(
        id: String, model: String, location: Location = .unknown, width: Int = 0, height: Int = 0,
        formats: [FourCC] = [], autofocus: Bool = false, autoExposure: Bool = false, stillWithPreview: Bool = false
    ) {
        self.id = id
        self.model = model
        self.location = location
        self.width = width
        self.height = height
        self.formats = formats
        self.autofocus = autofocus
        self.autoExposure = autoExposure
        self.stillWithPreview = stillWithPreview
    }
}

/// The streams asked for, and what the camera gave.
public struct CameraStreams: Sendable, Hashable {
    public var preview: (width: Int, height: Int)
    public var still: (width: Int, height: Int)
    public var previewFormat = FourCC(rawValue: 0)
    public var stillFormat = FourCC(rawValue: 0)
    /// Preview frames per second asked of the sensor; 0 leaves the camera's default.
    public var framesPerSecond = 0
    /// Both run together, so a still needs no mode switch.
    public var stillWithPreview = false

    public init(preview: (Int, Int), still: (Int, Int)) {
        self.preview = preview
        self.still = still
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.preview == b.preview && a.still == b.still && a.previewFormat == b.previewFormat
            && a.stillFormat == b.stillFormat && a.stillWithPreview == b.stillWithPreview
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(preview.width)
        hasher.combine(still.width)
    }
}

/// One completed camera buffer, valid until handed back with `frameDone`.
public struct CameraBuffer: @unchecked Sendable {
    public var still: Bool
    public var format: FourCC
    public var width: Int
    public var height: Int
    public var stride: Int
    public var planes: [UnsafePointer<UInt8>]
    public var planeBytes: [Int]
    public var timestamp: Duration
    public var sequence: Int
    public var cookie: UInt64
    /// The dmabufs behind the planes, when the buffer can be scanned out without a copy.
    public var dmabufs: [(fd: Int32, offset: Int)] = []
    public init(
        still: Bool, format: FourCC, width: Int, height: Int, stride: Int, planes: [UnsafePointer<UInt8>],
        planeBytes: [Int], timestamp: Duration, sequence: Int, cookie: UInt64
    ) {
        self.still = still
        self.format = format
        self.width = width
        self.height = height
        self.stride = stride
        self.planes = planes
        self.planeBytes = planeBytes
        self.timestamp = timestamp
        self.sequence = sequence
        self.cookie = cookie
    }
}

public enum CameraEvent: Sendable, Hashable {
    /// A USB camera was unplugged.
    case disconnected
    /// The camera stopped taking requests.
    case failed
}

/// Receives what a running camera produces, on the library's thread.
public protocol CameraSink: AnyObject, Sendable {
    func received(_ buffer: CameraBuffer)
    func received(_ event: CameraEvent)
}

/// The camera operations the station makes, one per call of the ss_camera shim, as a table that tests
/// can replace (see `GPIOCalls`). `LibCamera` is the real one.
public protocol CameraCalls: Sendable {
    var libraryVersion: String { get }
    func startManager() -> Result<CameraHandle, SystemError>
    func stopManager(_ manager: CameraHandle)
    func cameras(_ manager: CameraHandle) -> [CameraInfo]
    func open(_ manager: CameraHandle, selector: String) -> Result<CameraHandle, DriverFailure>
    func close(_ camera: CameraHandle)
    func configure(_ camera: CameraHandle, _ streams: CameraStreams, singleStream: Bool)
        -> Result<CameraStreams, DriverFailure>
    func start(_ camera: CameraHandle, sink: any CameraSink) -> Result<Void, SystemError>
    func wantStill(_ camera: CameraHandle) -> Result<Void, SystemError>
    /// Gives a frame's buffer back. A failure means the camera refused the request that went out again:
    /// it stopped taking requests. Told here, not through the sink, because callers hand back under locks.
    func frameDone(_ camera: CameraHandle, cookie: UInt64) -> Result<Void, SystemError>
    func stop(_ camera: CameraHandle)
    /// Gives up a camera that went silent or away, without stopping it (see `ss_cam_abandon`).
    func abandon(_ camera: CameraHandle)
}

/// The real camera layer: libcamera through the ss_camera shim.
public struct LibCamera: CameraCalls {
    public init() {}

    public var libraryVersion: String { String(cString: ss_cam_library_version()) }

    public func startManager() -> Result<CameraHandle, SystemError> {
        var manager: OpaquePointer?
        let result = ss_cam_manager_start(&manager)
        return SystemError.check(result).map { CameraHandle(manager) }
    }

    public func stopManager(_ manager: CameraHandle) { ss_cam_manager_stop(manager.pointer) }

    public func cameras(_ manager: CameraHandle) -> [CameraInfo] {
        (0..<Int(ss_cam_count(manager.pointer))).compactMap { index in
            var info = ss_cam_info()
            guard ss_cam_info_at(manager.pointer, Int32(index), &info) == 0 else { return nil }
            let formats = withUnsafeBytes(of: info.formats) { Array($0.bindMemory(to: UInt32.self)) }
            return CameraInfo(
                id: text(info.id), model: text(info.model), location: .init(rawValue: Int(info.location)) ?? .unknown,
                width: Int(info.width), height: Int(info.height),
                formats: formats.prefix(Int(info.format_count)).map(FourCC.init(rawValue:)),
                autofocus: info.autofocus, autoExposure: info.auto_exposure,
                stillWithPreview: info.still_with_preview)
        }
    }

    public func open(_ manager: CameraHandle, selector: String) -> Result<CameraHandle, DriverFailure> {
        var camera: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        let result = ss_cam_open(manager.pointer, selector, &camera, &message, message.count)
        return result < 0
            ? .failure(DriverFailure(SystemError(negative: result), cString(message))) : .success(CameraHandle(camera))
    }

    public func close(_ camera: CameraHandle) { ss_cam_close(camera.pointer) }

    public func configure(_ camera: CameraHandle, _ streams: CameraStreams, singleStream: Bool)
        -> Result<CameraStreams, DriverFailure>
    {
        var config = ss_cam_config()
        config.preview_width = UInt32(streams.preview.width)
        config.preview_height = UInt32(streams.preview.height)
        config.still_width = UInt32(streams.still.width)
        config.still_height = UInt32(streams.still.height)
        config.frame_rate = UInt32(max(0, streams.framesPerSecond))
        var message = [CChar](repeating: 0, count: 256)
        let result = ss_cam_configure(camera.pointer, &config, singleStream, &message, message.count)
        guard result == 0 else { return .failure(DriverFailure(SystemError(negative: result), cString(message))) }
        var given = streams
        given.preview = (Int(config.preview_width), Int(config.preview_height))
        given.previewFormat = FourCC(rawValue: config.preview_format)
        given.stillWithPreview = config.still_with_preview
        if config.still_with_preview {
            given.still = (Int(config.still_width), Int(config.still_height))
            given.stillFormat = FourCC(rawValue: config.still_format)
        } else if singleStream {
            given.still = given.preview
            given.stillFormat = given.previewFormat
        }
        return .success(given)
    }

    public func start(_ camera: CameraHandle, sink: any CameraSink) -> Result<Void, SystemError> {
        let box = Unmanaged.passRetained(SinkBox(sink))
        let result = ss_cam_start(
            camera.pointer,
            { context, frame in
                guard let context, let frame else { return }
                let sink = Unmanaged<SinkBox>.fromOpaque(context).takeUnretainedValue().sink
                let raw = frame.pointee
                let planes = withUnsafeBytes(of: raw.planes) { Array($0.bindMemory(to: UnsafePointer<UInt8>?.self)) }
                let bytes = withUnsafeBytes(of: raw.plane_bytes) { Array($0.bindMemory(to: UInt32.self)) }
                let fds = withUnsafeBytes(of: raw.plane_fds) { Array($0.bindMemory(to: Int32.self)) }
                let offsets = withUnsafeBytes(of: raw.plane_offsets) { Array($0.bindMemory(to: UInt32.self)) }
                let count = Int(raw.plane_count)
                var buffer =
                    CameraBuffer(
                        still: raw.stream == Int32(SS_CAM_STREAM_STILL), format: FourCC(rawValue: raw.format),
                        width: Int(raw.width), height: Int(raw.height), stride: Int(raw.stride),
                        planes: planes.prefix(count).compactMap { $0 }, planeBytes: bytes.prefix(count).map(Int.init),
                        timestamp: .nanoseconds(raw.timestamp_ns), sequence: Int(raw.sequence), cookie: raw.cookie)
                buffer.dmabufs = (0..<count).map { (fds[$0], Int(offsets[$0])) }
                sink.received(buffer)
            },
            { context, event in
                guard let context else { return }
                let sink = Unmanaged<SinkBox>.fromOpaque(context).takeUnretainedValue().sink
                sink.received(event == Int32(SS_CAM_EVENT_DISCONNECTED) ? CameraEvent.disconnected : .failed)
            }, box.toOpaque())
        guard result == 0 else {
            // Requests queued before the failure may still complete: stop (a no-op when nothing runs)
            // before the box their callbacks point at goes.
            ss_cam_stop(camera.pointer)
            box.release()
            return .failure(SystemError(negative: result))
        }
        sinks.withLock { $0[camera.raw] = box }
        return .success(())
    }

    public func wantStill(_ camera: CameraHandle) -> Result<Void, SystemError> {
        let result = ss_cam_want_still(camera.pointer)
        return SystemError.check(result)
    }

    public func frameDone(_ camera: CameraHandle, cookie: UInt64) -> Result<Void, SystemError> {
        SystemError.check(ss_cam_frame_done(camera.pointer, cookie))
    }

    public func abandon(_ camera: CameraHandle) {
        ss_cam_abandon(camera.pointer)
        // The callbacks are cut off, but one may be running now: the box it points at is left alive.
        _ = sinks.withLock { $0.removeValue(forKey: camera.raw) }
    }

    public func stop(_ camera: CameraHandle) {
        ss_cam_stop(camera.pointer)
        // No callback runs after stop returns, so the sink the C side pointed at can go.
        sinks.withLock { $0.removeValue(forKey: camera.raw) }?.release()
    }
}

/// The sink a started camera's C callbacks reach, kept alive until it is stopped.
private final class SinkBox: Sendable {
    let sink: any CameraSink
    init(_ sink: any CameraSink) { self.sink = sink }
}

private let sinks = Lock<[UInt: Unmanaged<SinkBox>]>([:])
