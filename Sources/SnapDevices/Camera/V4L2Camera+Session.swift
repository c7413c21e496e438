import Foundation
import Logging
import SnapFiles
import SnapImaging

/// The camera thread: one per `streamPreview`, the only thread that opens, configures, starts, stops,
/// dequeues from and closes the device.
extension V4L2Camera {
    /// Runs the stream until it is cancelled or fails, then closes everything and reports the reason.
    func session(slot: PreviewSlot, started: @escaping @Sendable () -> Void, waker: WakeablePoll) {
        SerialThread.nameCurrentThread("camera-v4l2")
        var reason: DeviceError?
        do throws(DeviceError) { try stream(into: slot, started: started, waker: waker) } catch { reason = error }
        shutDown(reason)
        let ended = state.withLock { state in
            defer {
                state.ended = nil
                state.running = false
                state.waker = nil
            }
            return state.ended
        }
        ended?.resume(returning: reason)
    }

    private func stream(into slot: PreviewSlot, started: @escaping @Sendable () -> Void, waker: WakeablePoll)
        throws(DeviceError)
    {
        let opening = ContinuousClock.now
        let (device, path, info, formats) = try openDevice()
        state.withLock {
            $0.device = device
            $0.path = path
        }
        let plan: V4L2Plan
        do throws(DeviceError) {
            plan = try V4L2Plan.choose(from: formats, preview: settings.preview, still: settings.still)
        } catch {
            throw DeviceError(.camera, "\(path) (\(info.card)) \(error.message)")
        }
        logger.info(
            "camera \(path): \(info.card)",
            metadata: [
                "driver": "\(info.driver)", "formats": "\(formats.map(\.fourcc.description).joined(separator: " "))",
            ])
        try start(plan.preview, stillMode: false, plan: plan, device: device)
        var announced = false
        while true {
            guard let next = nextStep(plan) else { return }
            switch next {
            case .switchTo(let stillMode):
                try start(stillMode ? plan.still : plan.preview, stillMode: stillMode, plan: plan, device: device)
                continue
            case .wait(let timeout, let pollDevice):
                let events: Int16
                do {
                    events =
                        try waker.waitOnce(for: pollDevice ? [calls.descriptor(device)] : [], timeout: timeout)
                        .events.first ?? 0
                } catch {
                    throw DeviceError(.camera, "camera \(path): poll failed: \(error)")
                }
                // POLLERR or POLLHUP on the device: gone, or its queue failed.
                let deviceError = events & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                if events & Int16(POLLIN) != 0 || deviceError {
                    let frames = try drain(device, path: path, plan: plan)
                    if frames.isEmpty && deviceError {
                        throw DeviceError(.camera, "camera \(path) reported an error and stopped streaming")
                    }
                    for frame in frames {
                        slot.put(frame)
                        if !announced {
                            announced = true
                            logger.info(
                                "camera \(path): first frame",
                                metadata: [
                                    "after_ms": "\(Int(((ContinuousClock.now - opening).seconds * 1000).rounded()))"
                                ])
                            started()
                        }
                    }
                }
                let quiet = state.withLock { $0.queued > 0 ? ContinuousClock.now - $0.lastFrame : .zero }
                if quiet >= settings.stallTimeout {
                    throw DeviceError(.camera, "camera \(path) sent no frame for \(Int(quiet.seconds)) s")
                }
            }
        }
    }

    private enum Step {
        case switchTo(stillMode: Bool)
        case wait(Duration, pollDevice: Bool)
    }

    /// What the thread does next, decided under the lock; nil when the stream was cancelled. Lets
    /// `prepareStill` go once the still mode runs. (A still's timeout is the queue's: it wakes this thread,
    /// which then switches back to the preview mode when nothing waits.)
    private func nextStep(_ plan: V4L2Plan) -> Step? {
        let (step, prepared) = state.withLock { state -> (Step?, [CheckedContinuation<Void, Never>]) in
            if state.stopRequested { return (nil, []) }
            let wantStills = !stills.isEmpty || state.wantStillMode
            if !plan.stillFromPreview {
                if wantStills && state.lifecycle == .previewing { return (.switchTo(stillMode: true), []) }
                if !wantStills && state.lifecycle == .stillMode { return (.switchTo(stillMode: false), []) }
            }
            let prepared = state.prepared
            state.prepared = []
            // At least every second: a device that went away without waking the poll shows it to a new one.
            let timeout = min(.seconds(1), settings.stallTimeout)
            return (.wait(max(timeout, .milliseconds(1)), pollDevice: state.queued > 0), prepared)
        }
        for waiter in prepared { waiter.resume() }
        return step
    }

    /// Stops the ring if it runs, sets `mode` and starts streaming it.
    private func start(_ mode: V4L2Mode, stillMode: Bool, plan: V4L2Plan, device: V4L2Handle) throws(DeviceError) {
        let (path, wasStreaming) = state.withLock { state in
            defer {
                state.generation += 1
                state.streaming = false
                state.queued = 0
                state.lifecycle = .closed
            }
            return (state.path, state.stream != nil)
        }
        if wasStreaming { calls.stop(device) }
        let stream: V4L2Stream
        switch calls.configure(device, mode, buffers: settings.buffers, framesPerSecond: settings.previewFPS) {
        case .success(let given): stream = given
        case .failure(let failure): throw DeviceError(.camera, Self.configureProblem(failure, path: path, mode: mode))
        }
        state.withLock { $0.stream = stream }
        let given = stream.mode
        logger.info(
            "camera \(stillMode ? "still mode" : "preview")",
            metadata: [
                "preview": "\(given)", "buffers": "\(stream.buffers)",
                "still": stillMode
                    ? "\(given)"
                    : plan.stillFromPreview
                        ? "\(given) (from the preview stream)" : "\(plan.still) (switches mode at the countdown)",
            ])
        if case .failure(let error) = calls.start(device) {
            calls.stop(device)
            state.withLock { $0.stream = nil }
            throw DeviceError(.camera, "cannot start streaming from \(path): VIDIOC_STREAMON: \(error)")
        }
        state.withLock { state in
            state.streaming = true
            state.queued = stream.buffers
            state.lastFrame = .now
            state.lifecycle = stillMode ? .stillMode : .previewing
        }
    }

    /// Takes every filled buffer: the first still asked for gets a frame of the still's mode, the others
    /// become preview frames (the slot keeps the newest). Damaged frames go straight back.
    private func drain(_ device: V4L2Handle, path: String, plan: V4L2Plan) throws(DeviceError) -> [PreviewFrame] {
        var frames: [PreviewFrame] = []
        while true {
            let dequeued: V4L2Frame?
            switch calls.dequeue(device) {
            case .success(let frame): dequeued = frame
            case .failure(let error) where error == .noDevice:
                throw DeviceError(.camera, "camera \(path) was disconnected")
            case .failure(let error):
                throw DeviceError(.camera, "camera \(path) stopped streaming: VIDIOC_DQBUF: \(error)")
            }
            guard let frame = dequeued else { return frames }
            let (generation, stream, stillWanted) = state.withLock { state in
                state.queued -= 1
                state.lastFrame = .now
                let stillMode = plan.stillFromPreview || state.lifecycle == .stillMode
                return (state.generation, state.stream, stillMode && !stills.isEmpty)
            }
            guard let stream, !frame.damaged, frame.bytesUsed > 0 else {
                handBack(frame.index, generation: generation)
                continue
            }
            let buffer = CameraBuffer(
                still: stillWanted, format: stream.mode.pixelFormat, width: stream.mode.width,
                height: stream.mode.height, stride: stream.stride, planes: [frame.data], planeBytes: [frame.bytesUsed],
                timestamp: frame.timestamp, sequence: frame.sequence, cookie: UInt64(frame.index))
            if stillWanted {
                // This thread alone stops the ring, so the buffer stays mapped while it is converted here.
                let image = Result { () throws(DeviceError) in try CameraPixels.convert(buffer) }
                handBack(frame.index, generation: generation)
                finishStill(image, frame: buffer)
                continue
            }
            frames.append(
                PreviewFrame(
                    width: buffer.width, height: buffer.height, timestamp: buffer.timestamp,
                    convert: { [weak self] in self?.previewImage(buffer, generation: generation) },
                    release: { [weak self] in self?.handBack(frame.index, generation: generation) }))
        }
    }

    /// Completes the oldest still with `image`; a frame that would not convert is logged and the still
    /// waits for the next one.
    private func finishStill(_ image: Result<PixelImage, DeviceError>, frame: CameraBuffer) {
        if case .failure(let error) = image {
            logger.warning("camera: a still frame was unusable, taking the next: \(error.message)")
            return
        }
        let taken = stills.finishOldest(image) { still in
            state.withLock { state in
                state.lastShutterLag = frame.timestamp - still.requested
                // The oldest is out of the queue already: this was the last one waiting.
                if stills.isEmpty { state.wantStillMode = false }
            }
        }
        guard let still = taken else { return }
        logger.info(
            "still \(frame.width)x\(frame.height) \(frame.format)",
            metadata: ["shutter_lag_ms": "\(Int(((frame.timestamp - still.requested).seconds * 1000).rounded()))"])
    }

    /// Opens the configured node, or with "first" the first plain capture node with a usable format.
    func openDevice() throws(DeviceError) -> (V4L2Handle, String, V4L2DeviceInfo, [V4L2Format]) {
        if settings.device != "first" {
            let path = settings.device
            let (device, info): (V4L2Handle, V4L2DeviceInfo)
            switch calls.open(path) {
            case .success(let opened): (device, info) = opened
            case .failure(let failure): throw DeviceError(.camera, Self.openProblem(failure, path: path))
            }
            guard info.capture else {
                calls.close(device)
                throw DeviceError(.camera, "\(path) (\(info.card)) is not a video capture device with streaming I/O")
            }
            return (device, path, info, calls.formats(device))
        }
        let nodes = calls.nodes()
        var passed: [String] = []
        for path in nodes {
            guard case .success(let (device, info)) = calls.open(path) else {
                passed.append("\(path) cannot be opened")
                continue
            }
            if info.capture && !info.mediaController {
                let formats = calls.formats(device)
                if formats.contains(where: { V4L2Plan.previewOrder.contains($0.fourcc) }) {
                    return (device, path, info, formats)
                }
                passed.append("\(path) (\(info.card)) has no usable format")
            } else {
                passed.append(
                    "\(path) (\(info.card)) is \(info.mediaController ? "a media-controller node" : "not a capture device")"
                )
            }
            calls.close(device)
        }
        guard !nodes.isEmpty else {
            throw DeviceError(.camera, "no V4L2 camera: there is no /dev/video* node (is the webcam plugged in?)")
        }
        throw DeviceError(.camera, "no V4L2 webcam among the video nodes: " + passed.joined(separator: "; "))
    }

    static func openProblem(_ failure: DriverFailure, path: String) -> String {
        switch failure.error {
        case .noEntry: return "\(path) does not exist (is the webcam plugged in?)"
        case .accessDenied: return "\(path): permission denied: the station's user needs the video group"
        default: return failure.message.isEmpty ? "\(path): \(failure.error)" : failure.message
        }
    }

    static func configureProblem(_ failure: DriverFailure, path: String, mode: V4L2Mode) -> String {
        if failure.error == .busy { return "\(path) is busy: another process is streaming from it" }
        let detail = failure.message.isEmpty ? "\(failure.error)" : failure.message
        return "cannot stream \(mode) from \(path): \(detail)"
    }

    /// Closes the device and fails whatever still waits; on the camera thread.
    private func shutDown(_ reason: DeviceError?) {
        let (device, prepared) = state.withLock { state in
            defer {
                state.generation += 1
                state.streaming = false
                state.queued = 0
                state.lifecycle = .closed
                state.device = nil
                state.stream = nil
                state.prepared = []
                state.wantStillMode = false
                state.stopRequested = true
            }
            return (state.device, state.prepared)
        }
        if let device {
            calls.stop(device)
            calls.close(device)
        }
        stills.close(failing: reason ?? DeviceError(.camera, "the camera stopped"))
        for waiter in prepared { waiter.resume() }
    }
}
