import Foundation
import Logging
import SnapApp
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapJar
import SnapScreens
import SnapTestSupport
import Synchronization
import Testing

/// A display that takes `delay` per frame, as a panel waiting for vblank does, and records what it got
/// and on which thread.
final class SlowDisplay: Display {
    let width = 480
    let height = 320
    let previewFramesPerSecond = 0.0
    let recordsEveryScreen: Bool
    let delay: TimeInterval
    let shown = Lock<[(change: FrameChange, thread: String)]>([])

    init(delay: TimeInterval, recordsEveryScreen: Bool = false) {
        self.delay = delay
        self.recordsEveryScreen = recordsEveryScreen
    }

    func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError) {
        Thread.sleep(forTimeInterval: delay)
        shown.withLock { $0.append((change, SerialThread.currentThreadName)) }
    }

    var names: [String] {
        shown.withLock { $0.compactMap { if case .screen(let name, _, _) = $0.change { name } else { nil } } }
    }
}

@Suite("The display service")
struct DisplayServiceTests {
    func service(_ display: SlowDisplay, clock: any ShellClock = SystemClock()) -> DisplayService {
        DisplayService(
            display: display, renderer: ScreenRenderer(images: .disk()), slot: PreviewSlot(),
            logger: Logger(label: "test"), clock: clock)
    }

    func uploading(_ progress: Double) -> Screen {
        let photo = ProcessedPhoto(
            id: PhotoID("20261123-120000-beef"), photoPath: "/nonexistent.jpg", thumbnailPath: "/nonexistent-t.jpg",
            takenAt: Date())
        return .uploading(UploadingScreen(photo: photo, group: "Family", progress: progress))
    }

    /// Waits until every screen shown was drawn or skipped.
    func settled(_ service: DisplayService, shown: Int) async -> Bool {
        await eventually(every: .milliseconds(10)) {
            let (draws, skipped) = service.counts
            return draws + skipped >= shown && service.busyFor == nil
        }
    }

    @Test("should draw and present on the display's own thread, never on the cooperative pool")
    func ownThread() async {
        let display = SlowDisplay(delay: 0)
        let service = service(display)
        service.show(.sent(group: "Family"))
        #expect(await settled(service, shown: 1))
        #expect(display.shown.withLock { $0.map(\.thread) } == ["display"])
    }

    @Test("should keep only the newest screen for a slow panel: 200 progress updates are a few frames")
    func coalesces() async {
        let display = SlowDisplay(delay: 0.03)
        let service = service(display)
        for step in 0...200 { service.show(uploading(Double(step) / 200)) }
        #expect(await settled(service, shown: 201))
        let (draws, skipped) = service.counts
        #expect(draws <= 5, "a frame takes 30 ms; the updates came in far less")
        #expect(draws + skipped == 201)
        #expect(display.shown.withLock { $0.count } == draws)
    }

    @Test("should give a recording display every different screen in order, folding updates of one screen")
    func recordsEveryScreen() async {
        let display = SlowDisplay(delay: 0.02, recordsEveryScreen: true)
        let service = service(display)
        let screens: [Screen] =
            [.countdown(CountdownScreen(secondsLeft: 3, mode: .group))]
            + [.countdown(CountdownScreen(secondsLeft: 2, mode: .group)), .capturing(mode: .group)]
            + (0...50).map { uploading(Double($0) / 50) } + [.sent(group: "Family")]
        for screen in screens { service.show(screen) }
        #expect(await settled(service, shown: screens.count))
        let names = display.names
        var folded: [String] = []
        for name in names where folded.last != name { folded.append(name) }
        #expect(folded == ["countdown", "capturing", "uploading", "sent"], "\(names)")
        #expect(names.count < 20, "the 51 progress updates were folded")
    }

    @Test("should count how long the ready screen has shown on its clock, from when it began, zero on another")
    func readyFor() async throws {
        let clock = HeldClock()
        let service = service(SlowDisplay(delay: 0), clock: clock)
        let ready = Screen.ready(
            ReadyScreen(
                mode: .group, groupName: "Family", totals: .zero, mealThumbnails: [], groupPhotoAvailable: false,
                analysesLeft: 5, missingDevices: []))
        clock.advance(by: .seconds(3))
        service.show(ready)
        clock.advance(by: .seconds(19))
        service.show(ready)
        #expect(service.readyFor() == .seconds(19), "a screen shown again keeps when it began")
        clock.advance(by: .milliseconds(1_500))
        #expect(service.readyFor() == .milliseconds(20_500))
        service.show(.sent(group: "Family"))
        #expect(service.readyFor() == .zero)
        service.show(ready)
        clock.advance(by: .seconds(1))
        #expect(service.readyFor() == .seconds(1), "counted again from its return")
    }

    @Test("should open a display that was missing at start once it can, draw on it, and say so")
    func missingAtStart() async throws {
        let real = SlowDisplay(delay: 0)
        let attempts = Lock(0)
        let recovered = Lock(false)
        let clock = HeldClock()
        let service = DisplayService(
            display: NullDisplay(width: 480, height: 320), renderer: ScreenRenderer(images: .disk()),
            slot: PreviewSlot(),
            reopen: { () throws(DeviceError) -> any Display in
                let attempt = attempts.withLock { value -> Int in
                    value += 1
                    return value
                }
                guard attempt >= 3 else { throw DeviceError(.display, "another process holds DRM master") }
                return real
            }, recovered: { recovered.withLock { $0 = true } }, retryInterval: .seconds(5),
            logger: Logger(label: "test"), clock: clock)
        service.show(.sent(group: "Family"))
        let running = Task { try await service.run() }
        defer { running.cancel() }
        #expect(await clock.sleepers() == [.seconds(5)], "the first try 5 s after start")
        for second in [10, 15] {
            clock.advance(by: .seconds(5))
            #expect(await clock.sleepers() == [.seconds(second)], "tried and failed; the next try at \(second) s")
        }
        clock.advance(by: .seconds(5))
        #expect(await eventually(every: .milliseconds(20)) { !real.names.isEmpty })
        #expect(recovered.withLock { $0 }, "the station is told the display is back")
        #expect(attempts.withLock { $0 } == 3, "tried until it opened, then no more")
        #expect(real.names == ["sent"], "the screen showing is drawn on the display that came back")
    }
}

/// A panel at 30 frames a second that keeps a copy of every frame it is given and how it changed.
final class KeepingDisplay: Display {
    let width = 480
    let height = 320
    let previewFramesPerSecond = 30.0
    let frames = Lock<[(change: FrameChange, pixels: [UInt8])]>([])

    func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            for byte in 0..<width * 4 { pixels[row * width * 4 + byte] = frame.bytes[row * frame.stride + byte] }
        }
        frames.withLock { $0.append((change, pixels)) }
    }
}

@Suite("The display service's jar")
struct DisplayServiceJarTests {
    @Test("should send the panel only the part where stickers moved, and end on the whole settled jar")
    func partialFrames() async throws {
        let display = KeepingDisplay()
        let animator = JarAnimator(pictures: .init(sticker: { _, _ in nil }, thumbnail: { _, _ in nil }), seed: 2)
        let service = DisplayService(
            display: display, renderer: ScreenRenderer(images: .disk()), slot: PreviewSlot(), jar: animator,
            logger: Logger(label: "test"), clock: SystemClock())
        func screen(_ count: Int) -> Screen {
            let stickers = (0..<count).map {
                JarSticker(
                    id: PhotoID("m\($0)"), stickerPath: nil, thumbnailPath: "", title: "Meal", totals: .zero,
                    funFact: nil)
            }
            return .ready(
                ReadyScreen(
                    mode: .meal, groupName: nil, totals: .zero, mealThumbnails: [], groupPhotoAvailable: false,
                    analysesLeft: 5, missingDevices: [], jar: JarContents(stickers: stickers)))
        }
        let running = Task { try await service.run() }
        defer { running.cancel() }
        service.show(screen(4))
        // Until the stickers have dropped in and everything sleeps: no frame for half a second.
        var quiet = 0
        for _ in 0..<1500 where quiet < 25 {
            let before = display.frames.withLock { $0.count }
            try await Task.sleep(for: .milliseconds(20))
            quiet = display.frames.withLock { $0.count } == before ? quiet + 1 : 0
        }
        #expect(quiet >= 25, "the jar settled and stopped redrawing")
        let frames = display.frames.withLock { $0 }
        let parts = frames.compactMap { $0.change.regions }
        let firstWhole = if case .screen("ready", _, _) = frames.first?.change { true } else { false }
        #expect(firstWhole, "the first frame is whole")
        #expect(parts.count >= frames.count / 2, "\(parts.count) of \(frames.count) frames were partial")
        let average =
            parts.map { $0.map { Double($0.width * $0.height) }.reduce(0, +) }.reduce(0, +)
            / Double(max(1, parts.count))
        #expect(average < 0.5 * 480 * 320, "a partial frame covered \(Int(average)) pixels on average")
        // The last frame is what a whole redraw of the settled jar gives.
        let canvas = Canvas(width: 480, height: 320)
        ScreenRenderer(images: .disk()).draw(screen(4), preview: nil, jar: animator.frame, on: canvas)
        let whole = canvas.snapshot().pixels
        let last = try #require(frames.last).pixels
        var worst = 0
        var differing = 0
        for index in 0..<whole.count where index % 4 != 3 && whole[index] != last[index] {
            worst = max(worst, abs(Int(whole[index]) - Int(last[index])))
            differing += 1
        }
        #expect(differing <= 120 && worst <= 8, "\(differing) bytes differ, by up to \(worst) levels")
    }
}
