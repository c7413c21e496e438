import Logging
import SnapFiles
import SnapImaging
import Synchronization

/// The camera through libcamera: CSI sensors on a Pi and USB (UVC) cameras.
///
/// Preview and still streams are configured together where the pipeline can (the Pi's ISP can): the
/// still is the first request completed after the trigger, with no mode switch (zero shutter lag).
/// Pipelines with one stream (UVC, vimc) switch to a still-sized stream in `prepareStill`, which the
/// station calls when the countdown starts, and back after the shot. Preview buffers are converted only
/// when drawn and go back to libcamera when the last holder drops them; the slot keeps one frame and
/// drops stale ones. Rotation and flips are applied in software to every frame (as for the other
/// cameras), so stills look the same whatever the pipeline supports.
///
/// One owner for the C camera: every call that starts, configures, stops or closes it runs on the
/// camera's own thread (`SerialThread` "camera"), so those blocking calls never hold a thread of the
/// cooperative pool and never interleave. Stills are queued (`StillQueue`): each `captureStill` gets its
/// own still, in the order asked, whoever asks (the capture and the reference frame). A buffer is handed back
/// under the same lock that stopping takes, so no buffer goes back to a camera that is stopping or gone.
public final class LibcameraCamera: Camera, CameraSink {
    public struct Settings: Sendable {
        /// An id as `snapstation selftest` lists it, an index, or "first".
        public var selector: String
        public var preview: (width: Int, height: Int)
        public var still: (width: Int, height: Int)
        /// Preview frames per second asked of the sensor; 0 leaves the camera's default.
        public var previewFPS: Int
        /// How long a still may take, from the request, before the capture fails.
        public var stillTimeout: Duration
        /// A streaming camera that delivers no frame for this long is taken for gone: a camera pulled out
        /// where no udev tells libcamera, or one that hung. The camera service then opens it again.
        public var stallTimeout: Duration
        public init(
            selector: String, preview: (Int, Int), still: (Int, Int), previewFPS: Int = 0,
            stillTimeout: Duration = .seconds(5), stallTimeout: Duration = .seconds(8)
        ) {
            self.selector = selector
            self.preview = preview
            self.still = still
            self.previewFPS = previewFPS
            self.stillTimeout = stillTimeout
            self.stallTimeout = stallTimeout
        }
    }

    /// Where the camera is in its life. Every change happens on the camera thread.
    public enum Lifecycle: Sendable, Hashable {
        case closed
        /// Configured and starting: a frame that completes now goes straight back, unseen.
        case starting
        /// Streaming preview, with a still stream beside it where the pipeline has one.
        case previewing
        /// A single-stream pipeline switched to its still-sized stream for the next shot.
        case stillMode
    }

    private struct State {
        var lifecycle = Lifecycle.closed
        var manager: CameraHandle?
        var camera: CameraHandle?
        var streams: CameraStreams?
        /// Bumped whenever buffers may be unmapped: frames of an older generation are neither converted
        /// nor handed back.
        var generation = 0
        var slot: PreviewSlot?
        var started: (@Sendable () -> Void)?
        /// When the camera was asked for the still being taken (`StillQueue.isTaking`).
        var trigger: Duration?
        var lastShutterLag: Duration?
        /// When the last frame of any stream arrived (or the camera started): the stall watchdog reads it.
        var lastFrame = ContinuousClock.now
        var ended: CheckedContinuation<DeviceError?, Never>?
        var endReason: DeviceError?
        /// The camera went silent or failed without libcamera knowing it is gone: it is abandoned, not
        /// stopped (`CameraCalls.abandon`).
        var abandon = false
        var accepting: Bool { lifecycle == .previewing || lifecycle == .stillMode }
    }

    public let settings: Settings
    private let calls: any CameraCalls
    private let logger: Logger
    private let state = Lock(State())
    private let thread = SerialThread(name: "camera")
    private let stills: StillQueue

    public init(settings: Settings, calls: any CameraCalls = LibCamera(), logger: Logger) {
        self.settings = settings
        self.calls = calls
        self.logger = logger
        self.stills = StillQueue(timeout: settings.stillTimeout)
    }

    deinit { thread.shutDown() }

    // MARK: Camera

    public func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    {
        do {
            try await thread.run { () throws(DeviceError) in try self.open(slot: slot, started: started) }
        } catch let error as DeviceError {
            throw error
        } catch {
            throw DeviceError(.camera, "\(error)")
        }
        let watchdog = Task { [settings] in
            while !Task.isCancelled {
                try? await Task.sleep(for: settings.stallTimeout / 4)
                let quiet = state.withLock { state in
                    state.lifecycle == .previewing || state.lifecycle == .stillMode
                        ? ContinuousClock.now - state.lastFrame : .zero
                }
                if quiet >= settings.stallTimeout {
                    state.withLock { $0.abandon = true }
                    end(DeviceError(.camera, "camera \(settings.selector) sent no frame for \(Int(quiet.seconds)) s"))
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        let reason: DeviceError? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = state.withLock { state -> DeviceError?? in
                    if let reason = state.endReason { return .some(reason) }
                    if Task.isCancelled { return .some(nil) }
                    state.ended = continuation
                    return nil
                }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            end(nil)
        }
        _ = try? await thread.run { self.shutDown() }
        if let reason { throw reason }
    }

    public func captureStill() async throws(DeviceError) -> PixelImage {
        try await stills.ask { [thread] in thread.submit { self.serveStills() } }.get()
    }

    public func prepareStill() async {
        _ = try? await thread.run {
            guard self.state.withLock({ $0.lifecycle == .previewing && $0.streams?.stillWithPreview == false })
            else { return }
            do throws(DeviceError) { try self.reconfigure(stillMode: true) } catch { self.end(error) }
        }
    }

    /// From the last still's trigger to its sensor timestamp (the start of its exposure).
    public var lastShutterLag: Duration? { state.withLock { $0.lastShutterLag } }

    /// Where the camera is in its life.
    public var lifecycle: Lifecycle { state.withLock { $0.lifecycle } }

    // MARK: CameraSink (libcamera's thread)

    public func received(_ buffer: CameraBuffer) {
        let (generation, accepting, slot, started, trigger, refused) = state.withLock { state in
            state.lastFrame = .now
            var refused = false
            if state.lifecycle == .starting, let camera = state.camera {
                refused = !calls.frameDone(camera, cookie: buffer.cookie).isSuccess
            }
            defer { if state.accepting && !buffer.still { state.started = nil } }
            return (state.generation, state.accepting, state.slot, state.started, state.trigger, refused)
        }
        if refused { received(CameraEvent.failed) }
        guard accepting else { return }
        if buffer.still {
            let image = convert(buffer, generation: generation)
            handBack(buffer.cookie, generation: generation)
            if let trigger {
                state.withLock { $0.lastShutterLag = buffer.timestamp - trigger }
                logger.info(
                    "still \(buffer.width)x\(buffer.height) \(buffer.format)",
                    metadata: ["shutter_lag_ms": "\(Self.milliseconds(buffer.timestamp - trigger))"])
            }
            finishStillInFlight(image)
            return
        }
        slot?.put(
            PreviewFrame(
                width: buffer.width, height: buffer.height, timestamp: buffer.timestamp, scanout: Scanout(buffer),
                convert: { try? self.convert(buffer, generation: generation).get() },
                release: { self.handBack(buffer.cookie, generation: generation) }))
        started?()
    }

    public func received(_ event: CameraEvent) {
        let id = settings.selector
        switch event {
        case .disconnected: end(DeviceError(.camera, "camera \(id) was disconnected"))
        case .failed:
            state.withLock { $0.abandon = true }
            end(DeviceError(.camera, "camera \(id) stopped taking requests"))
        }
    }

    // MARK: Inside

    public static func openProblem(_ failure: DriverFailure) -> String {
        let message = failure.message.isEmpty ? "\(failure.error)" : failure.message
        switch failure.error {
        case .noDevice where message == "no camera found":
            return "libcamera finds no camera: check the cable, and the camera lines in config.txt (see board/)"
        case .accessDenied:
            return "\(message): the station's user needs the video group and /dev/dma_heap (see systemd/)"
        default:
            return message
        }
    }

    static func milliseconds(_ duration: Duration) -> Int { Int((duration.seconds * 1000).rounded()) }

    /// On the camera thread: starts the manager, opens the camera, configures and starts it.
    private func open(slot: PreviewSlot, started: @escaping @Sendable () -> Void) throws(DeviceError) {
        let manager: CameraHandle
        switch calls.startManager() {
        case .success(let handle): manager = handle
        case .failure(let error): throw DeviceError(.camera, "libcamera did not start: \(error)")
        }
        let camera: CameraHandle
        switch calls.open(manager, selector: settings.selector) {
        case .success(let handle): camera = handle
        case .failure(let failure):
            calls.stopManager(manager)
            throw DeviceError(.camera, Self.openProblem(failure))
        }
        state.withLock { state in
            let generation = state.generation
            state = State()
            state.generation = generation + 1
            state.manager = manager
            state.camera = camera
            state.slot = slot
            state.started = started
        }
        stills.open()
        do throws(DeviceError) {
            try reconfigure(stillMode: false)
        } catch {
            shutDown()
            throw error
        }
    }

    /// On the camera thread: stops the camera if it runs, configures it for preview (with a still stream
    /// where it can) or for stills only, and starts it again.
    private func reconfigure(stillMode: Bool) throws(DeviceError) {
        let (camera, wasRunning) = state.withLock { state in
            defer { state.generation += 1 }
            let wasRunning = state.streams != nil
            // Closed while switching: frames that arrive are dropped, and none goes back, until started.
            state.lifecycle = .closed
            return (state.camera, wasRunning)
        }
        guard let camera else { return }
        if wasRunning { calls.stop(camera) }
        var wanted = CameraStreams(preview: settings.preview, still: settings.still)
        wanted.framesPerSecond = settings.previewFPS
        // Under the lock, so no frame of the old generation is being converted while buffers are unmapped.
        let configured = state.withLock { state in
            let result = calls.configure(camera, wanted, singleStream: stillMode)
            state.streams = try? result.get()
            return result
        }
        let streams: CameraStreams
        switch configured {
        case .failure(let failure):
            throw DeviceError(.camera, "cannot configure the camera: \(failure.message)")
        case .success(let given):
            streams = given
        }
        logger.info(
            "camera \(stillMode ? "still mode" : "preview")",
            metadata: [
                "preview": "\(streams.preview.width)x\(streams.preview.height) \(streams.previewFormat)",
                "still": streams.stillWithPreview
                    ? "\(streams.still.width)x\(streams.still.height) \(streams.stillFormat) (with preview)"
                    : "switches mode at the countdown",
            ])
        state.withLock {
            $0.lifecycle = .starting
            $0.lastFrame = .now
        }
        let started = calls.start(camera, sink: self)
        state.withLock { $0.lifecycle = started.isSuccess ? (stillMode ? .stillMode : .previewing) : .closed }
        if case .failure(let error) = started {
            // Requests may have gone out before the failure: stop, so no callback outlives the start.
            state.withLock { $0.generation += 1 }
            calls.stop(camera)
            throw DeviceError(.camera, "cannot start the camera: \(error)")
        }
    }

    /// On the camera thread: takes the next still asked for, unless one is being taken; with nothing
    /// asked, a single-stream camera goes back to its preview configuration.
    private func serveStills() {
        enum Next {
            case nothing, switchToPreview, switchToStills
            case trigger(CameraHandle)
        }
        while true {
            let next = state.withLock { state -> Next in
                guard state.accepting, let camera = state.camera, let streams = state.streams else { return .nothing }
                if stills.isTaking { return .nothing }
                if stills.isEmpty { return state.lifecycle == .stillMode ? .switchToPreview : .nothing }
                if !streams.stillWithPreview && state.lifecycle == .previewing { return .switchToStills }
                guard stills.beginTaking() != nil else { return .nothing }
                state.trigger = MonotonicClock.now()
                return .trigger(camera)
            }
            switch next {
            case .nothing:
                return
            case .switchToPreview, .switchToStills:
                do throws(DeviceError) {
                    try reconfigure(stillMode: { if case .switchToStills = next { true } else { false } }())
                } catch {
                    end(error)
                    return
                }
                if case .switchToPreview = next { return }
            case .trigger(let camera):
                if case .failure(let error) = calls.wantStill(camera) {
                    finishStillInFlight(.failure(DeviceError(.camera, "cannot ask for a still: \(error)")))
                    continue
                }
                return
            }
        }
    }

    private func convert(_ buffer: CameraBuffer, generation: Int) -> Result<PixelImage, DeviceError> {
        state.withLock { state in
            guard state.generation == generation, state.accepting else {
                return .failure(DeviceError(.camera, "the frame's buffer was reconfigured away"))
            }
            return Result { () throws(DeviceError) in try CameraPixels.convert(buffer) }
        }
    }

    /// Gives a buffer back, under the lock that stopping and closing take: a buffer of an older
    /// generation (the camera was stopped or reconfigured since) is not handed back at all.
    /// A refusal (the camera stopped taking requests) ends the stream once the lock is let go.
    private func handBack(_ cookie: UInt64, generation: Int) {
        let refused = state.withLock { state in
            guard state.generation == generation, state.accepting, let camera = state.camera else { return false }
            return !calls.frameDone(camera, cookie: cookie).isSuccess
        }
        if refused { received(CameraEvent.failed) }
    }

    /// Completes the still being taken, and lets the camera thread take the next.
    private func finishStillInFlight(_ result: Result<PixelImage, DeviceError>) {
        guard stills.finishTaking(result) != nil else { return }
        thread.submit { self.serveStills() }
    }

    /// Ends the stream: cancelled (nil) or the camera went away. Stills waiting fail with the reason.
    private func end(_ reason: DeviceError?) {
        let ended = state.withLock { state in
            defer {
                state.ended = nil
                state.trigger = nil
            }
            if state.endReason == nil { state.endReason = reason }
            return state.ended
        }
        ended?.resume(returning: reason)
        stills.close(failing: reason ?? DeviceError(.camera, "the camera stopped"))
    }

    /// On the camera thread: stops and closes the camera and the manager.
    private func shutDown() {
        let (manager, camera, abandon) = state.withLock { state in
            defer {
                state.lifecycle = .closed
                state.generation += 1
                state.slot = nil
                state.started = nil
                state.camera = nil
                state.manager = nil
                state.streams = nil
                state.trigger = nil
            }
            return (state.manager, state.camera, state.abandon)
        }
        if let camera {
            if abandon {
                logger.warning("camera: given up without stopping it (its device stopped answering)")
                calls.abandon(camera)
            } else {
                calls.stop(camera)
            }
            calls.close(camera)
        }
        if let manager { calls.stopManager(manager) }
        stills.close(failing: DeviceError(.camera, "the camera stopped"))
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
