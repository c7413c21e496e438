import Foundation
import SnapScreens
import SnapTestSupport
import Testing

@testable import SnapDevices

@Suite("DRM/KMS and fbdev displays (mocked)")
struct DisplayDriverTests {
    let red = Color(1, 0, 0)
    let blue = Color(0, 0, 1)

    @Test("should draw into the buffer not on screen and flip, alternating the two")
    func doubleBuffering() throws {
        let mock = MockDisplay()
        let display = try DRMDisplay(card: "", calls: mock)
        #expect(display.width == 8 && display.height == 4)
        #expect(display.previewFramesPerSecond == 60)
        let canvas = Canvas(width: 8, height: 4)
        canvas.clear(red)
        try display.present(canvas, change: .screen("ready"))
        #expect(mock.shownPixel(x: 3, y: 2).prefix(3) == [0, 0, 255], "XRGB8888 is B, G, R in memory")
        let first = mock.shown
        canvas.clear(blue)
        try display.present(canvas, change: .preview)
        #expect(mock.shown != first, "the second frame went to the other buffer")
        #expect(mock.shownPixel(x: 7, y: 3).prefix(3) == [255, 0, 0])
        #expect(
            Array(UnsafeBufferPointer(start: first, count: 3)) == [0, 0, 255],
            "the first buffer kept the red frame until it is drawn again")
    }

    @Test("should pass the configured card, connector and mode, and close the card when it goes")
    func openAndClose() throws {
        let mock = MockDisplay()
        do {
            _ = try DRMDisplay(card: "/dev/dri/card1", connector: "DSI-1", mode: (800, 480), calls: mock)
        }
        let requested = mock.state.withLock { $0.requested }
        #expect(requested?.card == "/dev/dri/card1" && requested?.connector == "DSI-1")
        #expect(requested?.width == 800 && requested?.height == 480)
        #expect(mock.state.withLock { $0.closed })
    }

    @Test("should turn the canvas a quarter turn for a portrait panel")
    func portrait() throws {
        let mock = MockDisplay(width: 8, height: 4)
        let display = try DRMDisplay(card: "", rotation: 90, calls: mock)
        #expect(display.width == 4 && display.height == 8, "the canvas is portrait")
        let canvas = Canvas(width: 4, height: 8)
        canvas.clear(blue)
        canvas.fill(Rect(x: 0, y: 0, width: 1, height: 1), red)
        try display.present(canvas, change: .screen("ready"))
        // A quarter turn clockwise takes the canvas's top-left corner to the panel's top-right.
        #expect(mock.shownPixel(x: 7, y: 0).prefix(3) == [0, 0, 255])
        #expect(mock.shownPixel(x: 0, y: 0).prefix(3) == [255, 0, 0])
    }

    @Test("should say when another process holds DRM master, or the user lacks the video group")
    func openErrors() {
        let mock = MockDisplay()
        let message = "/dev/dri/card1: another process holds DRM master (a desktop session, or another snapstation?)"
        mock.state.withLock { $0.openFailure = DriverFailure(.busy, message) }
        let busy = #expect(throws: DeviceError.self) { _ = try DRMDisplay(card: "/dev/dri/card1", calls: mock) }
        #expect(busy?.device == .display)
        #expect(busy?.message == message)

        mock.state.withLock { $0.openFailure = DriverFailure(.accessDenied, "/dev/dri/card1: Permission denied") }
        let denied = #expect(throws: DeviceError.self) { _ = try DRMDisplay(card: "/dev/dri/card1", calls: mock) }
        #expect(denied?.message.contains("video and render groups") == true)
    }

    @Test("should report a failed flip with the card and connector")
    func flipFailure() throws {
        let mock = MockDisplay()
        let display = try DRMDisplay(card: "", calls: mock)
        mock.state.withLock { $0.presentFailure = SystemError(ETIMEDOUT) }
        let failure = #expect(throws: DeviceError.self) {
            try display.present(Canvas(width: 8, height: 4), change: .preview)
        }
        #expect(failure?.message.hasPrefix("/dev/dri/card1 HDMI-A-1: page flip failed") == true)
    }

    @Test("should turn the panel off and on by DPMS for the night hours, and say when it cannot")
    func power() throws {
        let mock = MockDisplay()
        let display = try DRMDisplay(card: "", calls: mock)
        try display.setPower(on: false)
        try display.setPower(on: true)
        #expect(mock.state.withLock { $0.power } == [false, true])
        mock.state.withLock { $0.powerFailure = SystemError(ENOENT) }
        let failure = #expect(throws: DeviceError.self) { try display.setPower(on: false) }
        #expect(failure?.message.hasPrefix("/dev/dri/card1 HDMI-A-1: DPMS off failed") == true)
    }

    @Test("should write RGB565 into a framebuffer with padded rows")
    func framebuffer565() throws {
        let mock = MockDisplay(width: 10, height: 3, bitsPerPixel: 16)
        let display = try FramebufferDisplay(path: "/dev/fb1", calls: mock)
        let canvas = Canvas(width: 10, height: 3)
        canvas.clear(blue)
        canvas.fill(Rect(x: 9, y: 2, width: 1, height: 1), red)
        try display.present(canvas, change: .screen("ready"))
        let stride = mock.framebuffer.stride
        #expect(stride == 52)
        #expect([mock.screen[0], mock.screen[1]] == [0x1F, 0x00], "blue is the low five bits")
        let last = 2 * stride + 9 * 2
        #expect([mock.screen[last], mock.screen[last + 1]] == [0x00, 0xF8], "red is the high five bits")
        #expect(mock.screen[20] == 0 && mock.screen[51] == 0, "the padding after each row is left alone")
    }

    @Test("should write XBGR8888 when the framebuffer keeps red in the low byte")
    func framebufferBGR() throws {
        let mock = MockDisplay(width: 4, height: 2, bitsPerPixel: 32, redHigh: false)
        let display = try FramebufferDisplay(path: "/dev/fb0", calls: mock)
        let canvas = Canvas(width: 4, height: 2)
        canvas.clear(red)
        try display.present(canvas, change: .screen("ready"))
        #expect(Array(UnsafeBufferPointer(start: mock.screen, count: 3)) == [255, 0, 0])
    }

    @Test("should explain a missing framebuffer")
    func framebufferMissing() {
        let mock = MockDisplay()
        mock.state.withLock { $0.openFailure = DriverFailure(.noEntry, "") }
        let failure = #expect(throws: DeviceError.self) { _ = try FramebufferDisplay(path: "/dev/fb1", calls: mock) }
        #expect(failure?.message.contains("/dev/fb1: No such file or directory (ENOENT)") == true)
        #expect(failure?.message.contains("config.txt") == true)
    }

    @Test("should report missing devices through the real libdrm and fbdev calls")
    func realLibrary() {
        let drm = LibDRM()
        guard
            case .failure(let missing) = drm.openDRM(
                card: "/dev/dri/snapstation-none", connector: "", width: 0, height: 0)
        else {
            Issue.record("a card that does not exist opened")
            return
        }
        #expect(missing.error == .noEntry)
        #expect(missing.message.contains("/dev/dri/snapstation-none"))
        guard case .failure(let noFramebuffer) = drm.openFramebuffer("/dev/snapstation-no-fb") else {
            Issue.record("a framebuffer that does not exist opened")
            return
        }
        #expect(noFramebuffer == .noEntry)
        if FileManager.default.fileExists(atPath: "/dev/dri") {
            print("skipped: the no-card case needs a machine without /dev/dri; this one has it")
        } else {
            guard case .failure(let none) = drm.openDRM(card: "", connector: "", width: 0, height: 0) else {
                Issue.record("a display opened on a machine without /dev/dri")
                return
            }
            #expect(none.error == .noDevice)
            #expect(none.message == "no card in /dev/dri has a connected display")
        }
    }
}
