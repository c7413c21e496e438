import Foundation
import Logging
import SnapFiles
import SnapImaging
import SnapTestSupport
import Synchronization
import Testing

@testable import SnapDevices

@Suite("V4L2 format negotiation")
struct V4L2PlanTests {
    let webcam = [
        V4L2Format(
            .yuyv,
            sizes: [
                .discrete(width: 320, height: 240), .discrete(width: 640, height: 480),
                .discrete(width: 1280, height: 720),
            ]),
        V4L2Format(
            .mjpeg,
            sizes: [
                .discrete(width: 640, height: 480), .discrete(width: 1280, height: 720),
                .discrete(width: 1920, height: 1080),
            ]),
    ]

    @Test("should take stills in MJPEG at the largest size, and the preview in YUYV at the wanted size")
    func typicalWebcam() throws {
        let plan = try V4L2Plan.choose(from: webcam, preview: (640, 480), still: (2028, 1520))
        #expect(plan.preview == V4L2Mode(.yuyv, width: 640, height: 480))
        #expect(plan.still == V4L2Mode(.mjpeg, width: 1920, height: 1080))
        #expect(!plan.stillFromPreview)
    }

    @Test("should keep stills within the configured still size")
    func stillCap() throws {
        let plan = try V4L2Plan.choose(from: webcam, preview: (640, 480), still: (1280, 720))
        #expect(plan.still == V4L2Mode(.mjpeg, width: 1280, height: 720), "MJPEG wins the tie with YUYV")
    }

    @Test("should choose the preview size nearest the wanted one that is at least as large")
    func previewAtLeastAsLarge() throws {
        let formats = [
            V4L2Format(
                .yuyv,
                sizes: [
                    .discrete(width: 640, height: 360), .discrete(width: 960, height: 540),
                    .discrete(width: 1280, height: 720),
                ])
        ]
        let plan = try V4L2Plan.choose(from: formats, preview: (800, 480), still: (1280, 720))
        #expect(plan.preview == V4L2Mode(.yuyv, width: 960, height: 540))
        let small = try V4L2Plan.choose(from: formats, preview: (1920, 1080), still: (1280, 720))
        #expect(small.preview == V4L2Mode(.yuyv, width: 1280, height: 720), "none is large enough: the largest")
    }

    @Test("should preview in MJPEG when only MJPEG offers a size as large as the wanted one")
    func mjpegPreview() throws {
        let formats = [
            V4L2Format(.yuyv, sizes: [.discrete(width: 640, height: 480)]),
            V4L2Format(.mjpeg, sizes: [.discrete(width: 640, height: 480), .discrete(width: 1280, height: 720)]),
        ]
        let plan = try V4L2Plan.choose(from: formats, preview: (800, 480), still: (1280, 720))
        #expect(plan.preview == V4L2Mode(.mjpeg, width: 1280, height: 720))
        #expect(plan.stillFromPreview, "the still mode is the preview's: no switch")
    }

    @Test("should work with a camera that has only YUYV, switching to its larger size for stills")
    func onlyYUYV() throws {
        let formats = [
            V4L2Format(.yuyv, sizes: [.discrete(width: 640, height: 480), .discrete(width: 1280, height: 720)])
        ]
        let plan = try V4L2Plan.choose(from: formats, preview: (640, 480), still: (2028, 1520))
        #expect(plan.preview == V4L2Mode(.yuyv, width: 640, height: 480))
        #expect(plan.still == V4L2Mode(.yuyv, width: 1280, height: 720))
        let one = [V4L2Format(.yuyv, sizes: [.discrete(width: 640, height: 480)])]
        #expect(try V4L2Plan.choose(from: one, preview: (800, 480), still: (1280, 720)).stillFromPreview)
    }

    @Test("should fit sizes into a stepwise range, and take a format without listed sizes at the wanted size")
    func ranges() throws {
        let stepwise = [
            V4L2Format(
                .nv12, sizes: [.stepwise(width: 16...1920, widthStep: 16, height: 16...1088, heightStep: 8)])
        ]
        let plan = try V4L2Plan.choose(from: stepwise, preview: (801, 480), still: (4000, 3000))
        #expect(plan.preview == V4L2Mode(.nv12, width: 816, height: 480), "801 rounded up to a step of 16")
        #expect(plan.still == V4L2Mode(.nv12, width: 1920, height: 1088), "the range's largest")
        let unlisted = [V4L2Format(.mjpeg, sizes: [])]
        let guessed = try V4L2Plan.choose(from: unlisted, preview: (640, 480), still: (1280, 720))
        #expect(guessed.preview == V4L2Mode(.mjpeg, width: 640, height: 480))
        #expect(guessed.still == V4L2Mode(.mjpeg, width: 1280, height: 720))
    }

    @Test("should say which formats a camera offers when none is usable")
    func noUsableFormat() {
        let formats = [
            V4L2Format(FourCC("H264"), sizes: [.discrete(width: 1920, height: 1080)]),
            V4L2Format(FourCC("GREY"), sizes: [.discrete(width: 640, height: 480)]),
        ]
        let failure = #expect(throws: DeviceError.self) {
            _ = try V4L2Plan.choose(from: formats, preview: (640, 480), still: (1280, 720))
        }
        #expect(failure?.message.contains("offers no format the station can use (it offers H264, GREY") == true)
        let nothing = #expect(throws: DeviceError.self) {
            _ = try V4L2Plan.choose(from: [], preview: (640, 480), still: (1280, 720))
        }
        #expect(nothing?.message.contains("it offers nothing") == true)
    }
}

@Suite("V4L2 camera (mocked kernel)")
struct V4L2CameraTests {
    let settings = V4L2Camera.Settings(
        device: "/dev/video0", preview: (64, 48), still: (320, 240), stillTimeout: .seconds(30),
        stallTimeout: .seconds(60))
    static let yuyvOnly = [V4L2Format(.yuyv, sizes: [.discrete(width: 64, height: 48)])]
    static let yuyvAndMJPEG = [
        V4L2Format(.yuyv, sizes: [.discrete(width: 64, height: 48)]),
        V4L2Format(.mjpeg, sizes: [.discrete(width: 64, height: 48), .discrete(width: 320, height: 240)]),
    ]

    func camera(_ mock: MockV4L2, _ settings: V4L2Camera.Settings? = nil, log: CapturedLog? = nil) -> V4L2Camera {
        V4L2Camera(settings: settings ?? self.settings, calls: mock, logger: log?.logger ?? Logger(label: "test"))
    }

    /// Runs the preview until `body` is done, then cancels it and waits for it to end.
    func streaming(_ camera: V4L2Camera, _ body: (PreviewSlot) async throws -> Void) async throws {
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        try await body(slot)
        preview.cancel()
        _ = await preview.result
    }

    static func isRed(_ image: PixelImage?) -> Bool {
        guard let pixel = image?.rgb(x: 5, y: 5) else { return false }
        return pixel.red > 230 && pixel.green < 30 && pixel.blue < 30
    }

    @Test("should stream YUYV frames converted to pixels, and queue each buffer back once it is let go")
    func preview() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        try await streaming(camera(mock)) { slot in
            var frame = await slot.next()
            #expect(frame?.width == 64 && frame?.height == 48)
            #expect(Self.isRed(frame?.image), "Y 81, U 90, V 240 is red")
            frame = nil
            for _ in 0..<10 { _ = await slot.next() }
            let (held, sequence) = mock.state.withLock { ($0.outstanding.count, $0.sequence) }
            #expect(sequence > 4, "more frames than the ring has buffers: buffers went back")
            #expect(held <= 2, "only the frames the slot and the test hold are out")
        }
        let (closed, wrong) = mock.state.withLock { ($0.closed, $0.queuesOfBuffersNotHeld + $0.queuesWhileStopped) }
        #expect(closed == 1, "the device is closed when the preview ends")
        #expect(wrong == 0, "no buffer queued twice, none after stream-off")
    }

    @Test("should keep the newest frame when the display is slow, and give the stale ones back at once")
    func newestWins() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        try await streaming(camera(mock)) { slot in
            _ = await slot.next()
            // Nobody draws: the camera goes on, and the slot drops all but the newest.
            #expect(
                await eventually(every: .milliseconds(10)) { slot.droppedFrames > 3 },
                "frames kept coming while nobody drew them")
            let taken = await slot.next()
            #expect(taken != nil)
            #expect(mock.state.withLock { $0.outstanding.count } <= 2)
        }
    }

    @Test("should never queue a buffer after stream-off or close")
    func noQueueAfterStop() async throws {
        for _ in 0..<10 {
            let mock = MockV4L2(formats: Self.yuyvOnly)
            let camera = camera(mock)
            let displayDone = Lock(false)
            do {
                let slot = PreviewSlot()
                let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
                // The display drawing and letting go of frames as fast as they come, while the stream stops.
                let display = Thread {
                    while mock.state.withLock({ $0.closed }) == 0 { _ = slot.latest?.image }
                    displayDone.withLock { $0 = true }
                }
                display.start()
                var held = await slot.next()
                try await Task.sleep(for: .milliseconds(20))
                preview.cancel()
                _ = await preview.result
                // Let go after the close: the frame in hand, then the one the slot keeps.
                held = nil
                _ = held
            }
            // Waited for with a task's sleep: a blocking wait would hold one of the pool's threads.
            #expect(await eventually(every: .milliseconds(2)) { displayDone.withLock { $0 } })
            let (stopped, wrong, notHeld) = mock.state.withLock {
                ($0.stops, $0.queuesWhileStopped, $0.queuesOfBuffersNotHeld)
            }
            #expect(stopped >= 1)
            #expect(wrong == 0, "a buffer was queued after stream-off")
            #expect(notHeld == 0)
        }
    }

    @Test("should not convert a frame whose buffer was stopped away")
    func noConvertAfterStop() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        let camera = camera(mock)
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        let frame = try #require(await slot.next())
        preview.cancel()
        _ = await preview.result
        #expect(frame.image == nil, "the buffer is unmapped: no picture, no crash")
        #expect(mock.state.withLock { $0.queuesWhileStopped } == 0)
    }

    @Test("should take the still from the running stream when the preview mode is the still's")
    func stillFromStream() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        let log = CapturedLog()
        let camera = camera(mock, log: log)
        try await streaming(camera) { slot in
            _ = await slot.next()
            await camera.prepareStill()
            #expect(camera.lifecycle == .previewing)
            let still = try await camera.captureStill()
            #expect(still.width == 64 && still.height == 48)
            #expect(Self.isRed(still))
            #expect(await slot.next() != nil, "the preview runs on")
        }
        #expect(mock.state.withLock { $0.configures } == [V4L2Mode(.yuyv, width: 64, height: 48)], "no mode switch")
        #expect(log.all.contains { $0.contains("shutter_lag_ms") })
    }

    @Test("should switch to MJPEG stills at the countdown, and back to the preview after the shot")
    func stillModeSwitch() async throws {
        let mock = MockV4L2(formats: Self.yuyvAndMJPEG)
        let camera = camera(mock)
        try await streaming(camera) { slot in
            _ = await slot.next()
            await camera.prepareStill()
            #expect(camera.lifecycle == .stillMode)
            var during = await slot.next()
            if during?.width == 64 { during = await slot.next() }
            #expect(during?.width == 320, "the preview runs on from the still mode")
            #expect(during?.image?.width == 80, "MJPEG DCT-scaled to 1/4: no less than the preview's 64")
            during = nil
            let still = try await camera.captureStill()
            #expect(still.width == 320 && still.height == 240)
            #expect(Self.isRed(still))
            #expect(await waitUntil { camera.lifecycle == .previewing }, "back to the preview mode")
        }
        #expect(
            mock.state.withLock { $0.configures } == [
                V4L2Mode(.yuyv, width: 64, height: 48), V4L2Mode(.mjpeg, width: 320, height: 240),
                V4L2Mode(.yuyv, width: 64, height: 48),
            ])
        #expect(mock.state.withLock { $0.queuesWhileStopped + $0.queuesOfBuffersNotHeld } == 0, "no stale QBUF")
    }

    @Test("should give each of two stills asked for at once its own frame")
    func queuedStills() async throws {
        let mock = MockV4L2(formats: Self.yuyvAndMJPEG)
        let camera = camera(mock)
        try await streaming(camera) { slot in
            _ = await slot.next()
            let both = await withDeadline(seconds: 60) {
                async let first = camera.captureStill()
                async let second = camera.captureStill()
                return [try await first, try await second].map(\.width)
            }
            #expect(both == [320, 320])
            #expect(await waitUntil { camera.lifecycle == .previewing })
        }
        let configures = mock.state.withLock { $0.configures }
        #expect(configures.count >= 3 && configures.last == V4L2Mode(.yuyv, width: 64, height: 48), "\(configures)")
    }

    @Test("should skip frames the driver flags as damaged")
    func damagedFrames() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        mock.state.withLock { $0.damagedFrames = 3 }
        try await streaming(camera(mock)) { slot in
            let frame = await slot.next()
            #expect(Self.isRed(frame?.image))
            #expect(mock.state.withLock { $0.sequence } > 3, "the first three went back unseen")
        }
        #expect(mock.state.withLock { $0.queuesOfBuffersNotHeld } == 0)
    }

    @Test("should end the stream with a clear message when the webcam is unplugged")
    func unplugged() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        let camera = camera(mock)
        let slot = PreviewSlot()
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        _ = await slot.next()
        mock.unplug()
        let result = await withDeadline(seconds: 30) { await preview.result }
        guard case .failure(let error)? = result else {
            Issue.record("the unplugged camera's stream did not end: \(String(describing: result))")
            return
        }
        #expect("\(error)" == "camera: camera /dev/video0 was disconnected")
        #expect(mock.state.withLock { $0.closed } == 1)
        let idle = await #expect(throws: DeviceError.self) { _ = try await camera.captureStill() }
        #expect(idle?.message == "the camera is not running")
    }

    @Test("should end the stream when the webcam sends no frame for the stall time")
    func stall() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        var quick = settings
        quick.stallTimeout = .milliseconds(400)
        let slot = PreviewSlot()
        let camera = camera(mock, quick)
        let preview = Task { try await camera.streamPreview(into: slot, started: {}) }
        _ = await slot.next()
        mock.state.withLock { $0.silent = true }
        let result = await withDeadline(seconds: 30) { await preview.result }
        guard case .failure(let error)? = result else {
            Issue.record("the silent camera's stream did not end: \(String(describing: result))")
            return
        }
        #expect("\(error)".contains("camera /dev/video0 sent no frame for"))
    }

    @Test("should fail a still that gets no frame in time")
    func stillTimeout() async throws {
        let mock = MockV4L2(formats: Self.yuyvOnly)
        var quick = settings
        quick.stillTimeout = .milliseconds(200)
        let camera = camera(mock, quick)
        try await streaming(camera) { slot in
            _ = await slot.next()
            mock.state.withLock { $0.silent = true }
            // The frames filled before it went silent are the preview's to take first: under the whole
            // suite's load they were once still waiting, and the still took one of them.
            let drained = await eventually(every: .milliseconds(10)) {
                mock.state.withLock { $0.filled.isEmpty }
            }
            #expect(drained, "the preview took the frames filled before the camera went silent")
            let failure = await #expect(throws: DeviceError.self) { _ = try await camera.captureStill() }
            #expect(failure?.message.contains("no still within") == true)
            mock.state.withLock { $0.silent = false }
            let still = try await camera.captureStill()
            #expect(still.width == 64)
        }
    }

    @Test("should run every device call but QBUF on the camera's own thread")
    func cameraThread() async throws {
        let mock = MockV4L2(formats: Self.yuyvAndMJPEG)
        let camera = camera(mock)
        try await streaming(camera) { slot in
            _ = await slot.next()
            _ = try await camera.captureStill()
        }
        let calls = mock.state.withLock { $0.calls }
        #expect(calls.first == "open@camera-v4l2" && calls.last == "close@camera-v4l2", "\(calls)")
        #expect(calls.allSatisfy { $0.hasSuffix("@camera-v4l2") }, "\(calls)")
    }

    @Test("should pick the first plain capture node for \"first\", passing over others")
    func firstNode() async throws {
        let mock = MockV4L2(nodes: [
            .init(
                path: "/dev/video0",
                info: V4L2DeviceInfo(
                    driver: "vimc", card: "Raw Capture 0", capture: true,
                    mediaController: true), formats: Self.yuyvOnly),
            .init(
                path: "/dev/video1", info: V4L2DeviceInfo(driver: "uvcvideo", card: "Metadata", capture: false),
                formats: []),
            .init(
                path: "/dev/video2", info: V4L2DeviceInfo(driver: "uvcvideo", card: "H264 only", capture: true),
                formats: [V4L2Format(FourCC("H264"), sizes: [.discrete(width: 64, height: 48)])]),
            .init(
                path: "/dev/video3", info: V4L2DeviceInfo(driver: "uvcvideo", card: "Webcam", capture: true),
                formats: Self.yuyvOnly),
        ])
        var first = settings
        first.device = "first"
        try await streaming(camera(mock, first)) { slot in
            #expect(await slot.next() != nil)
        }
        let (opened, closed) = mock.state.withLock { ($0.opened, $0.closed) }
        #expect(opened == ["/dev/video0", "/dev/video1", "/dev/video2", "/dev/video3"])
        #expect(closed == 4, "the three passed over, and the webcam at the end")
    }

    @Test("should say what is wrong when the camera is missing, unusable or busy")
    func openErrors() async {
        func failure(_ mock: MockV4L2, device: String) async -> String? {
            var settings = settings
            settings.device = device
            let camera = camera(mock, settings)
            let error = await #expect(throws: DeviceError.self) {
                try await camera.streamPreview(into: PreviewSlot(), started: {})
            }
            return error?.message
        }
        let mock = MockV4L2(formats: Self.yuyvOnly)
        #expect(await failure(mock, device: "/dev/video7") == "/dev/video7 does not exist (is the webcam plugged in?)")
        #expect(await failure(MockV4L2(nodes: []), device: "first")?.contains("there is no /dev/video* node") == true)
        let h264 = MockV4L2(formats: [V4L2Format(FourCC("H264"), sizes: [.discrete(width: 64, height: 48)])])
        let unusable = await failure(h264, device: "/dev/video0")
        #expect(unusable?.hasPrefix("/dev/video0 (Mock Webcam) offers no format the station can use") == true)
        #expect(h264.state.withLock { $0.closed } == 1, "closed again")
        let busy = MockV4L2(formats: Self.yuyvOnly)
        busy.state.withLock { $0.configureFailure = DriverFailure(.busy, "/dev/video0: VIDIOC_S_FMT: busy") }
        #expect(
            await failure(busy, device: "/dev/video0") == "/dev/video0 is busy: another process is streaming from it")
    }

    @Test("should describe the camera and the modes it would stream for selftest, streaming nothing")
    func check() throws {
        let mock = MockV4L2(formats: Self.yuyvAndMJPEG)
        let text = try camera(mock).check()
        #expect(text == "/dev/video0 (Mock Webcam, uvcvideo): preview 64x48 YUYV, still 320x240 MJPG")
        let (closed, starts) = mock.state.withLock { ($0.closed, $0.starts) }
        #expect(closed == 1 && starts == 0)
        let missing = #expect(throws: DeviceError.self) { _ = try camera(MockV4L2(nodes: [])).check() }
        #expect(missing?.message == "/dev/video0 does not exist (is the webcam plugged in?)")
    }

    @Test("should open nothing that is not there through the real kernel calls")
    func realKernel() throws {
        let calls = KernelV4L2()
        guard case .failure(let failure) = calls.open("/dev/snapstation-no-such-video") else {
            Issue.record("a missing node opened")
            return
        }
        #expect(failure.error == .noEntry)
        #expect(failure.message.contains("/dev/snapstation-no-such-video: open"))
        let nodes = calls.nodes()
        guard let node = nodes.first else {
            print("skipped: no /dev/video* node on this machine; the VM suite streams from vivid (Tests/HIL)")
            return
        }
        if case .success(let (device, info)) = calls.open(node) {
            defer { calls.close(device) }
            print("\(node): \(info.card) (\(info.driver)): \(calls.formats(device).map(\.fourcc.description))")
        }
    }
}
