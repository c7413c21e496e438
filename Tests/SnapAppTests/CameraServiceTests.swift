import Logging
import SnapApp
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapTestSupport
import Synchronization
import Testing

/// A camera that counts its opens and streams, and can be told to fail.
final class CountingCamera: Camera {
    let opens = Lock(0)
    let streaming = Lock(false)
    let failing = Lock<String?>(nil)

    func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError) {
        opens.withLock { $0 += 1 }
        if let reason = failing.withLock({ $0 }) { throw DeviceError(.camera, reason) }
        streaming.withLock { $0 = true }
        defer { streaming.withLock { $0 = false } }
        slot.put(PreviewFrame(PixelImage(width: 4, height: 4, blue: 1, green: 2, red: 3)))
        started()
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func captureStill() async throws(DeviceError) -> PixelImage {
        guard streaming.withLock({ $0 }) else { throw DeviceError(.camera, "the camera is not running") }
        return PixelImage(width: 8, height: 8, blue: 1, green: 2, red: 3)
    }
}

@Suite("The camera service: open while someone needs the camera, closed when nobody does")
struct CameraServiceTests {
    @Test("should open the camera for the first holder, close it after the last, and empty the preview slot")
    func holdersOpenAndClose() async {
        let camera = CountingCamera()
        let (slot, demand, bus) = (PreviewSlot(), CameraDemand(clock: SystemClock()), EventBus())
        let service = CameraService(camera: camera, slot: slot, demand: demand, bus: bus, logger: Logger(label: "test"))
        let running = Task { try await service.run() }
        defer { running.cancel() }
        // The service waits for the first holder, and has opened nothing.
        #expect(await eventually(every: .milliseconds(5)) { demand.waiting == 1 })
        #expect(camera.opens.withLock { $0 } == 0, "nobody asked for the camera yet")
        demand.hold(.station, true)
        #expect(await demand.untilStreaming(timeout: .seconds(30)))
        #expect(slot.latest != nil)
        // Streaming, the service waits for the last holder to go; a change that wakes it takes its wait away.
        #expect(await eventually(every: .milliseconds(5)) { demand.waiting == 1 })
        demand.hold(.reference, true)
        demand.hold(.station, false)
        #expect(demand.waiting == 1, "the station's leaving did not wake the service: the reference holds it")
        #expect(demand.streaming && camera.opens.withLock { $0 } == 1)
        demand.hold(.reference, false)
        #expect(
            await eventually(every: .milliseconds(5)) {
                !demand.streaming && !camera.streaming.withLock { $0 }
            })
        #expect(
            await eventually(every: .milliseconds(5)) { slot.latest == nil },
            "no stale picture when the camera starts again")
        demand.hold(.station, true)
        #expect(await demand.untilStreaming(timeout: .seconds(30)) && camera.opens.withLock { $0 } == 2)
    }

    @Test("should retry a failing camera every 3 s of its clock while it is wanted, and report it missing once")
    func retriesWhileWanted() async {
        let camera = CountingCamera()
        camera.failing.withLock { $0 = "unplugged" }
        let clock = HeldClock()
        let (slot, demand, bus) = (PreviewSlot(), CameraDemand(clock: clock), EventBus())
        let service = CameraService(
            camera: camera, slot: slot, demand: demand, bus: bus, logger: Logger(label: "test"), clock: clock)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        demand.hold(.station, true)
        // Each failed open is followed by a wait of 3 s of the clock, and the next open only at its end.
        for open in 1...3 {
            let deadlines = await clock.sleepers()
            #expect(deadlines == [clock.uptime + .seconds(3)], "the wait after open \(open)")
            #expect(camera.opens.withLock { $0 } == open)
            if open == 3 { camera.failing.withLock { $0 = nil } }
            clock.advance(by: .seconds(3))
        }
        #expect(await eventually(every: .milliseconds(5)) { demand.streaming })
        #expect(camera.opens.withLock { $0 } == 4)
        var events: [Event] = []
        for await event in bus.events {
            events.append(event)
            if event == .device(.camera, .available) { break }
        }
        #expect(events.first == .device(.camera, .missing("unplugged")) && events.last == .device(.camera, .available))
    }

    @Test("should let a still wait for a camera that is starting")
    func stillWaitsForTheStart() async throws {
        let camera = CountingCamera()
        let clock = HeldClock()
        let (slot, demand, bus) = (PreviewSlot(), CameraDemand(clock: clock), EventBus())
        let service = CameraService(camera: camera, slot: slot, demand: demand, bus: bus, logger: Logger(label: "test"))
        // Nobody holds it, so it does not start: the wait ends at its limit of the clock, not before.
        let unheld = Task { await demand.untilStreaming(timeout: .seconds(5)) }
        #expect(await clock.sleepers() == [.seconds(5)])
        clock.advance(by: .milliseconds(4_999))
        #expect(clock.deadlines == [.seconds(5)])
        clock.advance(by: .milliseconds(1))
        #expect(await unheld.value == false, "nobody holds it: it does not start")
        let running = Task { try await service.run() }
        defer { running.cancel() }
        // A still asked for now waits; the camera's start ends its wait, the clock never moving.
        let waiting = Task { await demand.untilStreaming(timeout: .seconds(5)) }
        #expect(await clock.sleepers() == [.seconds(10)], "the still waits, its limit 5 s on from 5 s")
        demand.hold(.station, true)
        #expect(await eventually(every: .milliseconds(5)) { demand.streaming })
        #expect(await waiting.value, "ended by the start, not the clock")
        #expect(clock.deadlines.isEmpty, "its limit's wait is gone with it")
        let still = try await camera.captureStill()
        #expect(still.width == 8)
    }
}
