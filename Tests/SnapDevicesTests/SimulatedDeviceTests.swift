import Foundation
import Logging
import SnapCore
import SnapDevices
import SnapImaging
import SnapScreens
import SnapTestSupport
import Testing

@Suite("Simulated devices")
struct SimulatedDeviceTests {
    let folder = TemporaryDirectory("devices")

    @Test("should read press, hold and mode from typed lines")
    func typedWords() {
        #expect(SimulatedButtons.gesture(forLine: "press") == .press)
        #expect(SimulatedButtons.gesture(forLine: " p ") == .press)
        #expect(SimulatedButtons.gesture(forLine: "") == .press, "Enter alone is a press")
        #expect(SimulatedButtons.gesture(forLine: "HOLD") == .hold)
        #expect(SimulatedButtons.gesture(forLine: "m") == .mode)
        #expect(SimulatedButtons.gesture(forLine: "jump") == nil)
    }

    @Test("should play a button script in order")
    func script() async throws {
        let buttons = SimulatedButtons(
            script: try #require(ButtonScript("0.05s press, 0.05s hold")), readStandardInput: false,
            logger: Logger(label: "test"))
        var seen: [ButtonGesture] = []
        for await gesture in try buttons.gestures() {
            seen.append(gesture)
            if seen.count == 2 { break }
        }
        #expect(seen == [.press, .hold])
    }

    @Test("should stream preview frames at the preview size and take stills at the still size")
    func sceneCamera() async throws {
        let camera = try SimulatedCamera(
            previewSize: (160, 120), stillSize: (640, 480), framesPerSecond: 30, source: "")
        let slot = PreviewSlot()
        let streaming = Task { try await camera.streamPreview(into: slot, started: {}) }
        let frame = await slot.next()
        streaming.cancel()
        #expect(frame?.image?.width == 160 && frame?.image?.height == 120)
        let still = try await camera.captureStill()
        #expect(still.width == 640 && still.height == 480)
    }

    @Test("should show the JPEG files of a folder, and refuse a folder without any")
    func folderCamera() async throws {
        try Data(JPEG.encode(TestImages.marked(width: 320, height: 240), quality: 90))
            .write(to: URL(fileURLWithPath: folder.path + "/a.jpg"))
        let camera = try SimulatedCamera(
            previewSize: (160, 120), stillSize: (320, 240), framesPerSecond: 10, source: folder.path)
        let still = try await camera.captureStill()
        #expect(still.width == 320 && still.height == 240)
        #expect(still.rgb(x: 5, y: 5).red > 200, "the marked corner of the file")
        let empty = TemporaryDirectory("empty")
        #expect(throws: DeviceError.self) {
            try SimulatedCamera(previewSize: (160, 120), stillSize: (320, 240), framesPerSecond: 10, source: empty.path)
        }
    }

    @Test("should write every screen change with its caption, cap preview frames, and keep only the newest frames")
    func headlessDisplay() throws {
        let display = try HeadlessDisplay(
            width: 64, height: 48, folder: folder.path + "/frames", previewFramesPerSecond: 1, keep: 3)
        let canvas = Canvas(width: 64, height: 48)
        try display.present(canvas, change: .screen("ready"))
        try display.present(canvas, change: .preview)  // within a second of the last write: skipped
        try display.present(canvas, change: .screen("countdown"))
        try display.present(canvas, change: .screen("capturing"))
        try display.present(canvas, change: .screen("processing", caption: "processing · p1"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/frames").sorted()
        #expect(
            files == [
                "000002-countdown.png", "000003-capturing.png", "000004-processing.png", "000004-processing.txt",
                "latest.png", "latest.txt",
            ])
        #expect(try String(contentsOfFile: folder.path + "/frames/latest.txt", encoding: .utf8) == "processing · p1\n")
    }

    @Test("should fail every call of the null camera with its reason")
    func nullCamera() async {
        let camera = NullCamera(reason: "camera.backend is \"none\"")
        await #expect(throws: DeviceError(.camera, "camera.backend is \"none\"")) { try await camera.captureStill() }
    }
}
