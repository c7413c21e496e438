import Foundation
import Logging
import SnapFiles
import SnapImaging
import SnapTestSupport
import Synchronization
import Testing

@testable import SnapDevices

@Suite("libcamera camera (mocked) and frame conversion")
struct CameraDriverTests {
    let settings = LibcameraCamera.Settings(
        selector: "first", preview: (64, 48), still: (320, 240), stillTimeout: .seconds(30), stallTimeout: .seconds(60))

    /// Runs the preview until `body` is done, then cancels it and waits for it to end.
    func streaming(
        _ camera: LibcameraCamera, _ body: (PreviewSlot) async throws -> Void
    ) async throws {
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        try await body(slot)
        preview.cancel()
        _ = await preview.result
    }

    @Test("should stream NV12 preview frames converted to pixels, and hand every buffer back")
    func preview() async throws {
        let mock = MockCamera()
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            var frame = await slot.next()
            #expect(frame?.width == 64 && frame?.height == 48)
            let pixel = try #require(frame?.image).rgb(x: 10, y: 10)
            #expect(pixel.red > 240 && pixel.green < 20 && pixel.blue < 20, "Y 81, U 90, V 240 is red")
            frame = nil
            for _ in 0..<5 { _ = await slot.next() }
            #expect(slot.droppedFrames >= 0)
        }
        let (outstanding, closed, stopped) = mock.state.withLock { ($0.outstanding, $0.closed, $0.managerStopped) }
        #expect(closed && stopped, "the camera and the manager are closed when the preview ends")
        #expect(outstanding.count <= 1, "at most the frame left in the slot is still out")
    }

    @Test("should keep the pool flowing when the display is slow: stale frames go back at once")
    func slowDisplay() async throws {
        let mock = MockCamera()
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            _ = await slot.next()
            // Nobody draws: the camera goes on, and the slot drops all but the newest.
            #expect(
                await eventually(every: .milliseconds(10)) { slot.droppedFrames > 3 },
                "frames kept coming while nobody drew them")
            let taken = await slot.next()
            #expect(taken != nil)
            #expect(mock.state.withLock { $0.outstanding.count } <= 2, "only the frames still held are out")
        }
    }

    @Test("should take the still from the still stream with no mode switch when the pipeline runs both")
    func zeroShutterLag() async throws {
        let mock = MockCamera(twoStreams: true)
        let log = CapturedLog()
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: log.logger)
        try await streaming(camera) { slot in
            _ = await slot.next()
            await camera.prepareStill()
            let still = try await camera.captureStill()
            #expect(still.width == 320 && still.height == 240)
        }
        #expect(mock.state.withLock { $0.configures } == [false], "configured once, for both streams")
        #expect(log.all.contains { $0.contains("shutter_lag_ms") })
    }

    @Test("should switch a single-stream pipeline to stills at the countdown, and back after the shot")
    func singleStream() async throws {
        let mock = MockCamera(twoStreams: false)
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            _ = await slot.next()
            await camera.prepareStill()
            // A frame from before the switch may still wait in the slot; the next ones are still-sized.
            var duringCountdown = await slot.next()
            if duringCountdown?.width == 64 { duringCountdown = await slot.next() }
            #expect(duringCountdown?.width == 320, "the preview runs on from the still-sized stream")
            #expect(duringCountdown?.image?.width == 320)
            let still = try await camera.captureStill()
            #expect(still.width == 320 && still.height == 240)
            let after = await slot.next()
            #expect(after?.width == 64 || after?.width == 320)
        }
        #expect(mock.state.withLock { $0.configures } == [false, true, false])
    }

    @Test("should fail a capture that gets no still in time, and the next capture still works")
    func stillTimeout() async throws {
        let mock = MockCamera()
        var quick = settings
        quick.stillTimeout = .milliseconds(1000)
        let camera = LibcameraCamera(settings: quick, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            _ = await slot.next()
            mock.state.withLock { $0.dropStills = true }
            let failure = await #expect(throws: DeviceError.self) { _ = try await camera.captureStill() }
            #expect(failure?.message.contains("no still within") == true)
            mock.state.withLock { $0.dropStills = false }
            let still = try await camera.captureStill()
            #expect(still.width == 320)
        }
    }

    @Test("should give each of two stills asked for at once its own frame, the second after the first")
    func queuedStills() async throws {
        let mock = MockCamera(twoStreams: true)
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            _ = await slot.next()
            // The capture and the reference frame asking together: neither may be left waiting.
            let both = await withDeadline(seconds: 60) {
                async let first = camera.captureStill()
                async let second = camera.captureStill()
                return [try await first, try await second].map(\.width)
            }
            #expect(both == [320, 320], "both stills arrive, neither waits for ever")
        }
    }

    @Test("should switch a single-stream camera once for stills asked for together, and back after both")
    func queuedStillsSingleStream() async throws {
        let mock = MockCamera(twoStreams: false)
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            _ = await slot.next()
            let both = await withDeadline(seconds: 60) {
                async let first = camera.captureStill()
                async let second = camera.captureStill()
                return [try await first, try await second].map(\.width)
            }
            #expect(both == [320, 320])
            #expect(await waitUntil { camera.lifecycle == .previewing }, "back to the preview configuration")
        }
        #expect(mock.state.withLock { $0.configures } == [false, true, false])
    }

    @Test("should run every start, configure, stop and close on the camera's own thread, never on the pool")
    func controlThread() async throws {
        let mock = MockCamera(twoStreams: false)
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        try await streaming(camera) { slot in
            _ = await slot.next()
            await camera.prepareStill()
            _ = try await camera.captureStill()
            #expect(await waitUntil { camera.lifecycle == .previewing }, "back to the preview configuration")
        }
        let threads = mock.state.withLock { $0.controlThreads }
        #expect(threads.count == 10, "preview, still mode, preview again, then stopped and closed: \(threads)")
        #expect(threads.allSatisfy { $0.hasSuffix("@camera") }, "\(threads)")
    }

    @Test("should never hand a buffer back while the camera is being stopped or closed")
    func handBackAgainstStop() async throws {
        var overlaps = 0
        for _ in 0..<15 {
            let mock = MockCamera()
            mock.state.withLock { $0.frameDoneDelay = 0.002 }
            let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
            let slot = PreviewSlot()
            let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
            // The display letting go of frames as fast as they come, while the camera is stopped.
            let display = Thread {
                while !mock.state.withLock({ $0.closed }) { _ = slot.latest }
            }
            display.start()
            _ = await slot.next()
            try await Task.sleep(for: .milliseconds(30))
            preview.cancel()
            _ = await preview.result
            overlaps += mock.state.withLock { $0.stopsDuringHandBack }
        }
        #expect(overlaps == 0, "a stop or close began while a buffer was being handed back")
    }

    @Test("should drop frames that arrive after a failed start, and leave the camera stopped")
    func failedStart() async throws {
        let mock = MockCamera()
        mock.state.withLock { $0.failStartAfterQueueing = true }
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        let slot = PreviewSlot()
        let failure = await #expect(throws: DeviceError.self) {
            try await camera.streamPreview(into: slot, started: {})
        }
        #expect(failure?.message.contains("cannot start the camera") == true)
        let (running, closed, delivered) = mock.state.withLock {
            ($0.running, $0.closed, $0.framesAfterFailedStart)
        }
        #expect(delivered > 0, "the mock did complete requests after the failed start")
        #expect(slot.latest == nil, "no frame of a failed start reaches the preview")
        #expect(!running && closed, "stopped and closed")
    }

    @Test("should end the stream when a running camera goes silent, so the camera service opens it again")
    func stall() async throws {
        let mock = MockCamera()
        var quick = settings
        quick.stallTimeout = .milliseconds(400)
        let camera = LibcameraCamera(settings: quick, calls: mock, logger: Logger(label: "test"))
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        _ = await slot.next()
        mock.state.withLock { $0.silent = true }
        let result = await withDeadline(seconds: 30) { await preview.result }
        guard case .failure(let error)? = result else {
            Issue.record("the silent camera's stream did not end: \(String(describing: result))")
            return
        }
        #expect("\(error)".contains("sent no frame"))
        let (abandoned, stops) = mock.state.withLock { ($0.abandoned, $0.stops) }
        #expect(abandoned && stops == 0, "given up, not stopped: libcamera 0.0.3 aborts stopping a vanished device")
        #expect(mock.state.withLock { $0.closed }, "closed, ready to be opened again")
    }

    @Test("should say when there is no camera or it is in use")
    func openErrors() async {
        let mock = MockCamera()
        mock.state.withLock { $0.openFailure = DriverFailure(.noDevice, "no camera found") }
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        let missing = await #expect(throws: DeviceError.self) {
            try await camera.streamPreview(into: PreviewSlot(), started: {})
        }
        #expect(missing?.message.hasPrefix("libcamera finds no camera: check the cable") == true)
        #expect(mock.state.withLock { $0.managerStopped })
        let idle = await #expect(throws: DeviceError.self) { _ = try await camera.captureStill() }
        #expect(idle?.message == "the camera is not running")
    }

    @Test("should end the preview with an error when the USB camera is unplugged")
    func unplugged() async throws {
        let mock = MockCamera()
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        _ = await slot.next()
        mock.unplug()
        let result = await preview.result
        #expect(throws: DeviceError.self) { try result.get() }
        #expect(mock.state.withLock { $0.closed })
    }

    @Test("should end the stream when the camera refuses a handed-back request, from the frame's own callback too")
    func refusedRequest() async throws {
        let mock = MockCamera()
        let camera = LibcameraCamera(settings: settings, calls: mock, logger: Logger(label: "test"))
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        _ = await slot.next()
        // The next buffer handed back is refused: the frames the slot drops on libcamera's thread, and the
        // one taken here, are handed back under the camera's lock, where the refusal must not re-enter it.
        mock.state.withLock { $0.refuseRequests = true }
        _ = await slot.next()
        let result = await withDeadline(seconds: 30) { await preview.result }
        guard case .failure(let error)? = result else {
            Issue.record("the stream did not end on the refusal: \(String(describing: result))")
            return
        }
        #expect("\(error)".contains("stopped taking requests"))
        #expect(mock.state.withLock { $0.closed }, "closed, ready to be opened again")
    }

    @Test("should convert every pixel format the cameras deliver")
    func formats() throws {
        let (width, height) = (16, 8)
        func buffer(_ format: FourCC, _ bytes: [UInt8], stride: Int) -> CameraBuffer {
            let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            memory.initialize(from: bytes, count: bytes.count)
            return CameraBuffer(
                still: false, format: format, width: width, height: height, stride: stride, planes: [memory],
                planeBytes: [bytes.count], timestamp: .zero, sequence: 0, cookie: 0)
        }
        func isRed(_ image: PixelImage) -> Bool {
            let pixel = image.rgb(x: 5, y: 5)
            return pixel.red > 230 && pixel.green < 30 && pixel.blue < 30
        }
        // One plane, chroma after the luma rows, as some pipelines hand NV12 out.
        let nv12 =
            [UInt8](repeating: 81, count: width * height)
            + (0..<(width * height / 4)).flatMap { _ -> [UInt8] in [90, 240] }
        #expect(isRed(try CameraPixels.convert(buffer(.nv12, nv12, stride: width))))
        let i420 =
            [UInt8](repeating: 81, count: width * height) + [UInt8](repeating: 90, count: width * height / 4)
            + [UInt8](repeating: 240, count: width * height / 4)
        #expect(isRed(try CameraPixels.convert(buffer(.yuv420, i420, stride: width))))
        let yuyv: [UInt8] = (0..<(width * height / 2)).flatMap { _ -> [UInt8] in [81, 90, 81, 240] }
        #expect(isRed(try CameraPixels.convert(buffer(.yuyv, yuyv, stride: width * 2))))
        let rgb: [UInt8] = (0..<(width * height)).flatMap { _ -> [UInt8] in [0, 0, 255] }
        #expect(isRed(try CameraPixels.convert(buffer(.rgb888, rgb, stride: width * 3))), "RGB888 is B, G, R")
        let bgr: [UInt8] = (0..<(width * height)).flatMap { _ -> [UInt8] in [255, 0, 0] }
        #expect(isRed(try CameraPixels.convert(buffer(.bgr888, bgr, stride: width * 3))), "BGR888 is R, G, B")
        let row: [UInt8] = (0..<width).flatMap { _ -> [UInt8] in [0, 0, 255, 255] } + [1, 2, 3, 4]
        let padded: [UInt8] = (0..<height).flatMap { _ in row }
        #expect(isRed(try CameraPixels.convert(buffer(.xrgb8888, padded, stride: width * 4 + 4))))
        let jpeg = try JPEG.encode(PixelImage(width: width, height: height, red: 255), quality: 95)
        #expect(isRed(try CameraPixels.convert(buffer(.mjpeg, jpeg, stride: 0))))

        let corrupt = #expect(throws: DeviceError.self) {
            _ = try CameraPixels.convert(buffer(.mjpeg, [0xFF, 0xD8, 0x00], stride: 0))
        }
        #expect(corrupt?.message.contains("corrupt MJPEG") == true)
        let unknown = #expect(throws: DeviceError.self) {
            _ = try CameraPixels.convert(buffer(FourCC("BA81"), nv12, stride: width))
        }
        #expect(unknown?.message.contains("BA81") == true)
    }

    @Test("should list cameras through the real libcamera, and name the reason when there is none")
    func realLibrary() throws {
        let calls = LibCamera()
        #expect(!calls.libraryVersion.isEmpty)
        let manager = try calls.startManager().get()
        defer { calls.stopManager(manager) }
        let cameras = calls.cameras(manager)
        guard cameras.isEmpty else {
            print("skipped: the no-camera case needs a machine without cameras; this one has \(cameras.count)")
            return
        }
        guard case .failure(let failure) = calls.open(manager, selector: "first") else {
            Issue.record("a camera opened on a machine that lists none")
            return
        }
        #expect(failure.error == .noDevice)
        #expect(failure.message == "no camera found")
    }
}

/// Runs `body`, or gives up after `seconds` (nil): a continuation that is never resumed fails the test
/// instead of hanging it (the hung task is left behind).
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async -> T? {
    let answer = Lock<CheckedContinuation<T?, Never>?>(nil)
    return await withCheckedContinuation { continuation in
        answer.withLock { $0 = continuation }
        let finish: @Sendable (T?) -> Void = { value in answer.withLock { $0.take() }?.resume(returning: value) }
        Task { finish(try? await body()) }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            finish(nil)
        }
    }
}

/// Checks `condition` every 10 ms, for at least 5 s worth of checks (`eventually`).
func waitUntil(_ condition: () -> Bool) async -> Bool {
    await eventually(every: .milliseconds(10), condition)
}
