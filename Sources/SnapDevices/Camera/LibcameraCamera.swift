import Logging
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
public final class LibcameraCamera: Camera, CameraSink {
    public struct Settings: Sendable {
        /// An id as `snapstation selftest` lists it, an index, or "first".
        public var selector: String
        public var preview: (width: Int, height: Int)
        public var still: (width: Int, height: Int)
        /// How long a still may take before the capture fails.
        public var stillTimeout: Duration
        public init(selector: String, preview: (Int, Int), still: (Int, Int), stillTimeout: Duration = .seconds(5)) {
            self.selector = selector
            self.preview = preview
            self.still = still
            self.stillTimeout = stillTimeout
        }
    }

    private struct State {
        var manager: CameraHandle?
        var camera: CameraHandle?
        var streams: CameraStreams?
        var stillMode = false
        /// Bumped whenever buffers may be unmapped: frames of an older generation are neither converted
        /// nor handed back.
        var generation = 0
        var accepting = false
        var slot: PreviewSlot?
        var started: (@Sendable () -> Void)?
        var stillWaiter: CheckedContinuation<Result<PixelImage, DeviceError>, Never>?
        var trigger: Duration?
        /// Which capture the waiter belongs to, so a late timeout cannot fail the next one.
        var stillNumber = 0
        var lastShutterLag: Duration?
        var ended: CheckedContinuation<DeviceError?, Never>?
        var endReason: DeviceError?
    }

    public let settings: Settings
    private let calls: any CameraCalls
    private let logger: Logger
    private let state = Mutex(State())

    public init(settings: Settings, calls: any CameraCalls = LibCamera(), logger: Logger) {
        self.settings = settings
        self.calls = calls
        self.logger = logger
    }

    // MARK: Camera

    public func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    {
        try open(slot: slot, started: started)
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
        shutDown()
        if let reason { throw reason }
    }

    public func captureStill() async throws(DeviceError) -> PixelImage {
        guard let streams = state.withLock({ $0.camera == nil ? nil : $0.streams }) else {
            throw DeviceError(.camera, "the camera is not running")
        }
        if !streams.stillWithPreview { await prepareStill() }
        let result = await withCheckedContinuation { continuation in
            let refused = state.withLock { state -> DeviceError? in
                guard let camera = state.camera else { return DeviceError(.camera, "the camera is not running") }
                state.stillWaiter = continuation
                state.trigger = MonotonicClock.now()
                state.stillNumber += 1
                if case .failure(let error) = calls.wantStill(camera) {
                    state.stillWaiter = nil
                    return DeviceError(.camera, "cannot ask for a still: \(error)")
                }
                return nil
            }
            if let refused {
                continuation.resume(returning: .failure(refused))
                return
            }
            let number = state.withLock { $0.stillNumber }
            Task { [settings] in
                try? await Task.sleep(for: settings.stillTimeout)
                self.finishStill(
                    .failure(DeviceError(.camera, "no still within \(settings.stillTimeout) of the trigger")),
                    number: number)
            }
        }
        if state.withLock({ $0.stillMode }) {
            // Back to the preview configuration for the next countdown.
            do throws(DeviceError) { try reconfigure(stillMode: false) } catch { end(error) }
        }
        return try result.get()
    }

    public func prepareStill() async {
        guard let streams = state.withLock({ $0.streams }), !streams.stillWithPreview,
            !state.withLock({ $0.stillMode })
        else { return }
        do throws(DeviceError) { try reconfigure(stillMode: true) } catch { end(error) }
    }

    /// From the last still's trigger to its sensor timestamp (the start of its exposure).
    public var lastShutterLag: Duration? { state.withLock { $0.lastShutterLag } }

    // MARK: CameraSink

    public func received(_ buffer: CameraBuffer) {
        let (camera, generation, accepting, slot, started) = state.withLock { state in
            defer { if state.accepting && !buffer.still { state.started = nil } }
            return (state.camera, state.generation, state.accepting, state.slot, state.started)
        }
        guard let camera, accepting else { return }
        if buffer.still {
            let image = convert(buffer, generation: generation)
            calls.frameDone(camera, cookie: buffer.cookie)
            if let trigger = state.withLock({ $0.trigger }) {
                state.withLock { $0.lastShutterLag = buffer.timestamp - trigger }
                logger.info(
                    "still \(buffer.width)x\(buffer.height) \(buffer.format)",
                    metadata: ["shutter_lag_ms": "\(Self.milliseconds(buffer.timestamp - trigger))"])
            }
            finishStill(image)
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
        case .failed: end(DeviceError(.camera, "camera \(id) stopped taking requests"))
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
            state = State()
            state.manager = manager
            state.camera = camera
            state.slot = slot
            state.started = started
        }
        do throws(DeviceError) {
            try reconfigure(stillMode: false)
        } catch {
            shutDown()
            throw error
        }
    }

    /// Stops the camera if it runs, configures it for preview (with a still stream where it can) or for
    /// stills only, and starts it again.
    private func reconfigure(stillMode: Bool) throws(DeviceError) {
        guard let camera = state.withLock({ $0.camera }) else { return }
        let wasRunning = state.withLock { state in
            defer {
                state.accepting = false
                state.generation += 1
            }
            return state.streams != nil
        }
        if wasRunning { calls.stop(camera) }
        let wanted = CameraStreams(preview: settings.preview, still: settings.still)
        // Under the lock, so no frame of the old generation is being converted while buffers are unmapped.
        let configured = state.withLock { state in
            let result = calls.configure(camera, wanted, singleStream: stillMode)
            if case .success(let streams) = result {
                state.streams = streams
                state.stillMode = stillMode
                state.accepting = true
            }
            return result
        }
        switch configured {
        case .failure(let failure):
            throw DeviceError(.camera, "cannot configure the camera: \(failure.message)")
        case .success(let streams):
            logger.info(
                "camera \(stillMode ? "still mode" : "preview")",
                metadata: [
                    "preview": "\(streams.preview.width)x\(streams.preview.height) \(streams.previewFormat)",
                    "still": streams.stillWithPreview
                        ? "\(streams.still.width)x\(streams.still.height) \(streams.stillFormat) (with preview)"
                        : "switches mode at the countdown",
                ])
        }
        if case .failure(let error) = calls.start(camera, sink: self) {
            throw DeviceError(.camera, "cannot start the camera: \(error)")
        }
    }

    private func convert(_ buffer: CameraBuffer, generation: Int) -> Result<PixelImage, DeviceError> {
        state.withLock { state in
            guard state.generation == generation, state.camera != nil else {
                return .failure(DeviceError(.camera, "the frame's buffer was reconfigured away"))
            }
            return Result { () throws(DeviceError) in try CameraPixels.convert(buffer) }
        }
    }

    private func handBack(_ cookie: UInt64, generation: Int) {
        let camera = state.withLock { $0.generation == generation ? $0.camera : nil }
        if let camera { calls.frameDone(camera, cookie: cookie) }
    }

    /// Completes the capture waiting (only capture `number`, when given).
    private func finishStill(_ result: Result<PixelImage, DeviceError>, number: Int? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<PixelImage, DeviceError>, Never>? in
            if let number, number != state.stillNumber { return nil }
            defer {
                state.stillWaiter = nil
                state.trigger = nil
            }
            return state.stillWaiter
        }
        waiter?.resume(returning: result)
    }

    /// Ends the stream: cancelled (nil) or the camera went away.
    private func end(_ reason: DeviceError?) {
        let ended = state.withLock { state in
            defer { state.ended = nil }
            if state.endReason == nil { state.endReason = reason }
            return state.ended
        }
        ended?.resume(returning: reason)
        if let reason { finishStill(.failure(reason)) }
    }

    private func shutDown() {
        let (manager, camera) = state.withLock { state in
            defer {
                state.accepting = false
                state.generation += 1
                state.slot = nil
            }
            return (state.manager, state.camera)
        }
        if let camera {
            calls.stop(camera)
            state.withLock { $0.camera = nil }
            calls.close(camera)
        }
        if let manager { calls.stopManager(manager) }
        state.withLock { state in
            state.manager = nil
            state.streams = nil
        }
        finishStill(.failure(DeviceError(.camera, "the camera stopped")))
    }
}
