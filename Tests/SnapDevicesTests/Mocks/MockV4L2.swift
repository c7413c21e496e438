import Foundation
import SnapDevices
import SnapFiles
import SnapImaging
import Synchronization

/// A V4L2 capture device in memory that behaves like the kernel's: a ring of buffers the driver fills in
/// the order they were queued (a producer thread, one every 5 ms), a pipe that is readable while a filled
/// buffer waits (what poll(2) sees on a real node), ENODEV and a hang-up once unplugged, and a count of
/// every misuse the driver would refuse: a QBUF after stream-off, or of a buffer the caller does not hold.
final class MockV4L2: V4L2Calls, @unchecked Sendable {
    struct Node {
        var path: String
        var info: V4L2DeviceInfo
        var formats: [V4L2Format]
    }

    struct State {
        var nodes: [Node]
        var configureFailure: DriverFailure?
        var configures: [V4L2Mode] = []
        var mode: V4L2Mode?
        var streaming = false
        /// With the driver, in the order it fills them.
        var queued: [Int] = []
        /// Filled, waiting for DQBUF.
        var filled: [Int] = []
        /// Dequeued: held by the caller until it queues them again.
        var outstanding: Set<Int> = []
        var queuesWhileStopped = 0
        var queuesOfBuffersNotHeld = 0
        var starts = 0
        var stops = 0
        var opened: [String] = []
        var closed = 0
        var gone = false
        var silent = false
        /// Frames the driver flags V4L2_BUF_FLAG_ERROR, the next ones first.
        var damagedFrames = 0
        var sequence = 0
        /// "call@thread" for each device call other than QBUF (which the display thread makes).
        var calls: [String] = []
    }

    let state: Lock<State>
    let buffers = 4
    /// Luma and chroma of every raw frame: (81, 90, 240) is pure red in BT.601.
    let yuv: (y: UInt8, u: UInt8, v: UInt8) = (81, 90, 240)
    private let memoryLock = NSLock()
    private var memory: [UnsafeMutablePointer<UInt8>] = []
    private var imageBytes = 0
    private var ends: [Int32] = [-1, -1]

    init(nodes: [Node]) {
        state = Lock(State(nodes: nodes))
        pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
        // The kernel's side: a frame every 5 ms into a queued buffer, until the mock is gone (the thread
        // holds it only while producing, so the test's end frees it and ends the thread).
        let thread = Thread { [weak self] in
            while true {
                let alive: Bool = {
                    guard let mock = self else { return false }
                    return mock.produce()
                }()
                guard alive else { return }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        thread.start()
    }

    /// One webcam at /dev/video0 offering `formats`.
    convenience init(formats: [V4L2Format]) {
        self.init(nodes: [
            Node(
                path: "/dev/video0", info: V4L2DeviceInfo(driver: "uvcvideo", card: "Mock Webcam", capture: true),
                formats: formats)
        ])
    }

    deinit {
        for end in ends where end >= 0 { Glibc.close(end) }
        for buffer in memory { buffer.deallocate() }
    }

    private func record(_ call: String) {
        state.withLock { $0.calls.append("\(call)@\(SerialThread.currentThreadName)") }
    }

    func nodes() -> [String] { state.withLock { $0.nodes.map(\.path) } }

    func open(_ path: String) -> Result<(V4L2Handle, V4L2DeviceInfo), DriverFailure> {
        record("open")
        return state.withLock { state in
            guard !state.gone, let index = state.nodes.firstIndex(where: { $0.path == path }) else {
                return .failure(DriverFailure(.noEntry, "\(path): open: No such file or directory"))
            }
            state.opened.append(path)
            return .success((V4L2Handle(raw: UInt(0x1000 + index)), state.nodes[index].info))
        }
    }

    func close(_ device: V4L2Handle) {
        record("close")
        state.withLock { $0.closed += 1 }
    }

    func descriptor(_ device: V4L2Handle) -> Int32 { memoryLock.withLock { ends[0] } }

    func formats(_ device: V4L2Handle) -> [V4L2Format] {
        state.withLock { $0.nodes[Int(device.raw) - 0x1000].formats }
    }

    func configure(_ device: V4L2Handle, _ mode: V4L2Mode, buffers: Int, framesPerSecond: Int)
        -> Result<V4L2Stream, DriverFailure>
    {
        record("configure")
        if let failure = state.withLock({ $0.configureFailure }) { return .failure(failure) }
        let (frame, stride) = Self.frame(mode, yuv: yuv)
        memoryLock.withLock {
            for buffer in memory { buffer.deallocate() }
            memory = (0..<self.buffers).map { _ in
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: frame.count)
                buffer.initialize(from: frame, count: frame.count)
                return buffer
            }
            imageBytes = frame.count
        }
        return state.withLock { state in
            state.configures.append(mode)
            state.mode = mode
            return .success(V4L2Stream(mode: mode, stride: stride, imageBytes: frame.count, buffers: self.buffers))
        }
    }

    /// A whole red frame in `mode`'s format, and its stride.
    static func frame(_ mode: V4L2Mode, yuv: (y: UInt8, u: UInt8, v: UInt8)) -> ([UInt8], Int) {
        let (width, height) = (mode.width, mode.height)
        switch mode.format {
        case .mjpeg, .jpeg:
            let jpeg = (try? JPEG.encode(PixelImage(width: width, height: height, red: 255), quality: 90)) ?? []
            return (jpeg, 0)
        case .nv12:
            var bytes = [UInt8](repeating: yuv.y, count: width * height * 3 / 2)
            for index in stride(from: width * height, to: bytes.count - 1, by: 2) {
                bytes[index] = yuv.u
                bytes[index + 1] = yuv.v
            }
            return (bytes, width)
        default:
            var bytes = [UInt8](repeating: yuv.y, count: width * height * 2)
            for index in stride(from: 1, to: bytes.count - 2, by: 4) {
                bytes[index] = yuv.u
                bytes[index + 2] = yuv.v
            }
            return (bytes, width * 2)
        }
    }

    func start(_ device: V4L2Handle) -> Result<Void, SystemError> {
        record("start")
        return state.withLock { state in
            if state.gone { return .failure(.noDevice) }
            state.streaming = true
            state.starts += 1
            state.queued = Array(0..<buffers)
            state.filled = []
            state.outstanding = []
            return .success(())
        }
    }

    /// Fills the oldest queued buffer; false once the mock is unplugged for good.
    private func produce() -> Bool {
        let ready = state.withLock { state -> Bool in
            guard state.streaming, !state.silent, !state.gone, !state.queued.isEmpty else { return false }
            state.filled.append(state.queued.removeFirst())
            return true
        }
        if ready {
            var byte: UInt8 = 1
            memoryLock.withLock { _ = write(ends[1], &byte, 1) }
        }
        return true
    }

    func dequeue(_ device: V4L2Handle) -> Result<V4L2Frame?, SystemError> {
        let taken = state.withLock { state -> Result<(Int, Int, Bool)?, SystemError> in
            if state.gone { return .failure(.noDevice) }
            guard state.streaming, !state.filled.isEmpty else { return .success(nil) }
            let index = state.filled.removeFirst()
            state.outstanding.insert(index)
            state.sequence += 1
            let damaged = state.damagedFrames > 0
            if damaged { state.damagedFrames -= 1 }
            return .success((index, state.sequence, damaged))
        }
        switch taken {
        case .failure(let error): return .failure(error)
        case .success(nil): return .success(nil)
        case .success(let (index, sequence, damaged)?):
            return memoryLock.withLock {
                var byte: UInt8 = 0
                _ = read(ends[0], &byte, 1)
                return .success(
                    V4L2Frame(
                        index: index, data: UnsafePointer(memory[index]), bytesUsed: imageBytes,
                        timestamp: MonotonicClock.now(), sequence: sequence, damaged: damaged))
            }
        }
    }

    func queue(_ device: V4L2Handle, index: Int) -> Result<Void, SystemError> {
        state.withLock { state in
            if state.gone { return .failure(.noDevice) }
            guard state.streaming else {
                state.queuesWhileStopped += 1
                return .failure(SystemError(EINVAL))
            }
            guard state.outstanding.remove(index) != nil else {
                state.queuesOfBuffersNotHeld += 1
                return .failure(SystemError(EINVAL))
            }
            state.queued.append(index)
            return .success(())
        }
    }

    func stop(_ device: V4L2Handle) {
        record("stop")
        state.withLock { state in
            state.streaming = false
            state.stops += 1
            state.queued = []
            state.filled = []
            state.outstanding = []
        }
        memoryLock.withLock {
            var sink = [UInt8](repeating: 0, count: 256)
            while read(ends[0], &sink, sink.count) > 0 {}
        }
    }

    /// Plays the webcam being pulled out: every call fails with ENODEV and the node hangs up.
    func unplug() {
        state.withLock { $0.gone = true }
        memoryLock.withLock {
            Glibc.close(ends[1])
            ends[1] = -1
        }
    }
}
