import Foundation
import Logging
import SnapFiles
import SnapImaging
import Synchronization

/// A plain USB webcam (`/dev/videoN`) through Video4Linux2, where libcamera is absent or does not support it.
///
/// The device lists its formats and sizes; `V4L2Plan` chooses a preview mode (near the configured preview
/// size, raw YUYV/NV12 preferred) and a still mode (MJPEG at the largest size up to the configured still
/// size). Frames stream through a ring of `Settings.buffers` mmap'ed buffers (4: the slot keeps the newest
/// frame, the display may hold one being drawn, which leaves two with the driver). Each preview buffer
/// becomes a `PreviewFrame`, converted only when drawn (MJPEG DCT-scaled down to the preview size) and
/// queued back to the driver when its last holder lets go, so the newest frame wins as with libcamera.
/// When the still mode differs from the preview's, the camera switches to it in `prepareStill` (the
/// countdown) and back after the shot; otherwise the still is the next frame of the running stream.
///
/// One owner for the device: a thread of its own ("camera-v4l2") opens, configures, starts, stops and
/// closes it, and sleeps in poll(2) between frames, so nothing blocks the cooperative pool. Buffers go back
/// (VIDIOC_QBUF) under the lock that stopping takes, and only while the generation they came from is still
/// streaming: no buffer is queued after stream-off or close. A device that goes away (ENODEV, POLLERR) or
/// sends no frame for `stallTimeout` ends `streamPreview` with an error; `CameraService` opens it again.
public final class V4L2Camera: Camera {
    public struct Settings: Sendable {
        /// A device path (/dev/video0), or "first": the first node that is a plain capture device with a
        /// format the station takes.
        public var device: String
        public var preview: (width: Int, height: Int)
        public var still: (width: Int, height: Int)
        /// Frames per second asked of the camera; 0 leaves its default.
        public var previewFPS: Int
        /// Buffers in the ring.
        public var buffers: Int
        /// How long a still may take, from the request, before the capture fails.
        public var stillTimeout: Duration
        /// A streaming camera that delivers no frame for this long is taken for gone.
        public var stallTimeout: Duration
        public init(
            device: String, preview: (Int, Int), still: (Int, Int), previewFPS: Int = 0, buffers: Int = 4,
            stillTimeout: Duration = .seconds(5), stallTimeout: Duration = .seconds(8)
        ) {
            self.device = device
            self.preview = preview
            self.still = still
            self.previewFPS = previewFPS
            self.buffers = buffers
            self.stillTimeout = stillTimeout
            self.stallTimeout = stallTimeout
        }
    }

    /// Where the camera is in its life. Every change happens on the camera thread.
    public enum Lifecycle: Sendable, Hashable {
        case closed
        case previewing
        /// Switched to the still mode for the next shot; the preview runs on from it.
        case stillMode
    }

    struct State {
        var lifecycle = Lifecycle.closed
        /// A `streamPreview` is running (its thread may still be opening the device).
        var running = false
        var stopRequested = false
        var waker: WakeablePoll?
        var device: V4L2Handle?
        var path = ""
        var stream: V4L2Stream?
        /// Bumped whenever the ring is stopped: buffers of an older generation are neither converted nor
        /// queued again.
        var generation = 0
        var streaming = false
        /// Buffers the driver holds; the device is polled only while it holds one.
        var queued = 0
        var lastFrame = ContinuousClock.now
        /// `prepareStill` asked for the still mode; cleared by the shot.
        var wantStillMode = false
        var prepared: [CheckedContinuation<Void, Never>] = []
        var lastShutterLag: Duration?
        var ended: CheckedContinuation<DeviceError?, Never>?
    }

    public let settings: Settings
    let calls: any V4L2Calls
    let logger: Logger
    let state = Lock(State())
    let stills: StillQueue

    public init(settings: Settings, calls: any V4L2Calls = KernelV4L2(), logger: Logger) {
        self.settings = settings
        self.calls = calls
        self.logger = logger
        self.stills = StillQueue(timeout: settings.stillTimeout, name: "camera-v4l2-stills")
    }

    // MARK: Camera

    public func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    {
        let waker: WakeablePoll
        do { waker = try WakeablePoll() } catch {
            throw DeviceError(.camera, "cannot wait for camera frames: \(error)")
        }
        let fresh = state.withLock { state -> Bool in
            guard !state.running else { return false }
            let generation = state.generation
            state = State()
            state.generation = generation + 1
            state.running = true
            state.waker = waker
            return true
        }
        guard fresh else { throw DeviceError(.camera, "camera \(settings.device) is already streaming") }
        stills.open()
        let reason: DeviceError? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { $0.ended = continuation }
                let thread = Thread { self.session(slot: slot, started: started, waker: waker) }
                thread.start()
            }
        } onCancel: {
            let waker = state.withLock { state -> WakeablePoll? in
                state.stopRequested = true
                return state.waker
            }
            waker?.wake()
        }
        if let reason { throw reason }
    }

    public func captureStill() async throws(DeviceError) -> PixelImage {
        try await stills.ask { [weak self] in self?.state.withLock { $0.waker }?.wake() }.get()
    }

    public func prepareStill() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waker = state.withLock { state -> WakeablePoll? in
                guard state.running, !state.stopRequested, let waker = state.waker else { return nil }
                state.wantStillMode = true
                state.prepared.append(continuation)
                return waker
            }
            guard let waker else { return continuation.resume() }
            waker.wake()
        }
    }

    /// From the last still's request to its frame's timestamp (negative: the frame was exposed before).
    public var lastShutterLag: Duration? { state.withLock { $0.lastShutterLag } }

    /// Where the camera is in its life.
    public var lifecycle: Lifecycle { state.withLock { $0.lifecycle } }

    // MARK: Buffers (any thread)

    /// The frame's pixels for the preview, or nil once its buffer was stopped away. Under the lock that
    /// stopping takes, so the buffer cannot be unmapped while it is read.
    func previewImage(_ buffer: CameraBuffer, generation: Int) -> PixelImage? {
        state.withLock { state in
            guard state.generation == generation, state.streaming else { return nil }
            do throws(DeviceError) {
                return try CameraPixels.convert(
                    buffer, longestSide: max(settings.preview.width, settings.preview.height))
            } catch {
                return nil
            }
        }
    }

    /// Queues a buffer back to the driver, unless the ring it came from was stopped since.
    func handBack(_ index: Int, generation: Int) {
        let wake = state.withLock { state -> WakeablePoll? in
            guard state.generation == generation, state.streaming, let device = state.device else { return nil }
            guard case .success = calls.queue(device, index: index) else { return nil }
            state.queued += 1
            guard state.queued == 1 else { return nil }
            // The driver had no buffer: the camera thread was not polling it, and the quiet was not the camera's.
            state.lastFrame = .now
            return state.waker
        }
        wake?.wake()
    }
}

extension V4L2Camera {
    /// Opens the camera the settings name, chooses its modes and lets it go, streaming nothing: what
    /// `snapstation selftest` reports, such as "/dev/video0 (HD Webcam, uvcvideo): preview 640x480 YUYV,
    /// still 1920x1080 MJPG". Blocks on the device: not for the cooperative pool.
    public func check() throws(DeviceError) -> String {
        let (device, path, info, formats) = try openDevice()
        defer { calls.close(device) }
        let plan: V4L2Plan
        do throws(DeviceError) {
            plan = try V4L2Plan.choose(from: formats, preview: settings.preview, still: settings.still)
        } catch {
            throw DeviceError(.camera, "\(path) (\(info.card)) \(error.message)")
        }
        let still = plan.stillFromPreview ? "from the preview stream" : "\(plan.still)"
        return "\(path) (\(info.card), \(info.driver)): preview \(plan.preview), still \(still)"
    }
}
