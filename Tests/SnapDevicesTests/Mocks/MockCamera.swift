import Foundation
import SnapDevices
import SnapFiles
import Synchronization

/// A camera layer in memory that behaves like libcamera: a pool of NV12 buffers cycled by a producer
/// thread, buffers out until `frameDone`, a still on the request after `wantStill`, and one or two
/// streams depending on the pipeline it plays.
final class MockCamera: CameraCalls, @unchecked Sendable {
    struct State {
        var cameras: [CameraInfo] = [CameraInfo(id: "/base/soc/i2c0mux/i2c@1/imx708@1a", model: "imx708")]
        var openFailure: DriverFailure?
        var configures: [Bool] = []
        var streams: CameraStreams?
        var running = false
        var sink: (any CameraSink)?
        var free: [Int] = []
        var outstanding: Set<Int> = []
        var wantStill = false
        var dropStills = false
        var stops = 0
        var closed = false
        var managerStopped = false
        var sequence = 0
        /// The thread each control call ran on, in order: "configure@camera", "stop@camera", …
        var controlThreads: [String] = []
        /// `frameDone` calls running now, and how often `stop` or `close` began while one was.
        var handingBack = 0
        var stopsDuringHandBack = 0
        /// How long `frameDone` takes: widens the window in which a stop could overlap it.
        var frameDoneDelay: TimeInterval = 0
        /// `start` queues its requests, then fails, as libcamera can when a queueRequest is refused.
        var failStartAfterQueueing = false
        var framesAfterFailedStart = 0
        var startFailed = false
        /// The camera stops delivering frames (pulled out where nothing tells libcamera).
        var silent = false
        var abandoned = false
        /// libcamera refuses the requests handed back from now on (`queueRequest` fails).
        var refuseRequests = false
    }

    let state = Lock(State())
    /// Signalled by the producer when it completes the first request after a failed start.
    private let completedAfterFailedStart = DispatchSemaphore(value: 0)
    /// Whether the pipeline runs a preview and a still stream together (the Pi's ISP) or only one (UVC).
    let twoStreams: Bool
    /// Luma and chroma of every frame: (81, 90, 240) is pure red in BT.601.
    let yuv: (y: UInt8, u: UInt8, v: UInt8)
    private var memory: [Int: UnsafeMutablePointer<UInt8>] = [:]
    private let memoryLock = NSLock()
    let libraryVersion = "mock"

    init(twoStreams: Bool = true, yuv: (UInt8, UInt8, UInt8) = (81, 90, 240)) {
        self.twoStreams = twoStreams
        self.yuv = yuv
    }

    deinit { for (_, buffer) in memory { buffer.deallocate() } }

    func startManager() -> Result<CameraHandle, SystemError> { .success(CameraHandle(raw: 0x1000)) }
    func stopManager(_ manager: CameraHandle) { state.withLock { $0.managerStopped = true } }
    func cameras(_ manager: CameraHandle) -> [CameraInfo] { state.withLock { $0.cameras } }

    func open(_ manager: CameraHandle, selector: String) -> Result<CameraHandle, DriverFailure> {
        state.withLock { state in
            if let failure = state.openFailure { return .failure(failure) }
            return .success(CameraHandle(raw: 0x2000))
        }
    }

    func close(_ camera: CameraHandle) {
        state.withLock { state in
            state.closed = true
            state.controlThreads.append("close@\(SerialThread.currentThreadName)")
            if state.handingBack > 0 { state.stopsDuringHandBack += 1 }
        }
    }

    func configure(_ camera: CameraHandle, _ streams: CameraStreams, singleStream: Bool)
        -> Result<CameraStreams, DriverFailure>
    {
        state.withLock { state in
            state.controlThreads.append("configure@\(SerialThread.currentThreadName)")
            state.configures.append(singleStream)
            var given = streams
            given.previewFormat = .nv12
            if singleStream {
                given.preview = streams.still
            }
            given.stillWithPreview = twoStreams && !singleStream
            given.stillFormat = .nv12
            if !given.stillWithPreview && !singleStream { given.still = given.preview }
            state.streams = given
            state.free = Array(0..<4)
            state.outstanding = []
            return .success(given)
        }
    }

    private func buffer(_ index: Int, width: Int, height: Int) -> UnsafePointer<UInt8> {
        memoryLock.lock()
        defer { memoryLock.unlock() }
        let key = index * 100_000 + width
        if let buffer = memory[key] { return UnsafePointer(buffer) }
        let size = width * height * 3 / 2
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        buffer.initialize(repeating: yuv.y, count: width * height)
        for index in stride(from: width * height, to: size, by: 2) {
            buffer[index] = yuv.u
            buffer[index + 1] = yuv.v
        }
        memory[key] = buffer
        return UnsafePointer(buffer)
    }

    func start(_ camera: CameraHandle, sink: any CameraSink) -> Result<Void, SystemError> {
        let fail = state.withLock { state in
            state.controlThreads.append("start@\(SerialThread.currentThreadName)")
            state.running = true
            state.sink = sink
            return state.failStartAfterQueueing
        }
        let thread = Thread { self.produce() }
        thread.name = "mock-camera"
        thread.start()
        guard !fail else {
            // The requests are out and complete on the producer thread until someone stops the camera.
            state.withLock { $0.startFailed = true }
            // Fails only once a request has completed after it (the case under test), however busy the
            // machine: 20 ms of sleep was not always enough for the producer thread to run.
            _ = completedAfterFailedStart.wait(timeout: .now() + 5)
            return .failure(SystemError(EIO))
        }
        return .success(())
    }

    /// Hands out a frame every 5 ms while there is a free buffer, as libcamera completes requests.
    private func produce() {
        while true {
            let next = state.withLock { state -> (any CameraSink, CameraBuffer)? in
                guard state.running, !state.silent, let sink = state.sink, let streams = state.streams,
                    !state.free.isEmpty
                else { return nil }
                let index = state.free.removeFirst()
                state.outstanding.insert(index)
                state.sequence += 1
                let still = state.wantStill && !state.dropStills
                state.wantStill = false
                let size = still && streams.stillWithPreview ? streams.still : streams.preview
                return (
                    sink,
                    CameraBuffer(
                        still: still, format: .nv12, width: size.width, height: size.height, stride: size.width,
                        planes: [], planeBytes: [], timestamp: MonotonicClock.now(), sequence: state.sequence,
                        cookie: UInt64(index))
                )
            }
            guard state.withLock({ $0.running }) else { return }
            if case (let sink, var frame)? = next {
                let first = state.withLock { state -> Bool in
                    guard state.startFailed else { return false }
                    state.framesAfterFailedStart += 1
                    return state.framesAfterFailedStart == 1
                }
                if first { completedAfterFailedStart.signal() }
                let luma = buffer(Int(frame.cookie), width: frame.width, height: frame.height)
                frame.planes = [luma, luma + frame.width * frame.height]
                frame.planeBytes = [frame.width * frame.height, frame.width * frame.height / 2]
                sink.received(frame)
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    func wantStill(_ camera: CameraHandle) -> Result<Void, SystemError> {
        state.withLock { $0.wantStill = true }
        return .success(())
    }

    func frameDone(_ camera: CameraHandle, cookie: UInt64) -> Result<Void, SystemError> {
        let delay = state.withLock { state in
            state.handingBack += 1
            return state.frameDoneDelay
        }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        return state.withLock { state in
            state.handingBack -= 1
            guard state.outstanding.remove(Int(cookie)) != nil, state.running else { return .success(()) }
            // As ss_cam_frame_done: the request goes out again, or the camera's refusal is the answer.
            if state.refuseRequests { return .failure(SystemError(ENODEV)) }
            state.free.append(Int(cookie))
            return .success(())
        }
    }

    func abandon(_ camera: CameraHandle) {
        state.withLock { state in
            state.controlThreads.append("abandon@\(SerialThread.currentThreadName)")
            state.running = false
            state.abandoned = true
        }
    }

    func stop(_ camera: CameraHandle) {
        state.withLock { state in
            state.controlThreads.append("stop@\(SerialThread.currentThreadName)")
            if state.handingBack > 0 { state.stopsDuringHandBack += 1 }
            state.running = false
            state.stops += 1
        }
        // Like libcamera's stop: the producer is done before it returns.
        Thread.sleep(forTimeInterval: 0.02)
    }

    /// Plays a USB camera being unplugged.
    func unplug() {
        let sink = state.withLock { $0.sink }
        sink?.received(.disconnected)
    }
}
