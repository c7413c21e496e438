import Foundation
import Logging
import SnapApp
import SnapCore
import SnapDevices
import SnapFiles
import SnapTestSupport
import Synchronization
import Testing

/// Buttons whose lines are lost after one press, then come back.
final class LosingButtons: Buttons {
    let opens = Lock(0)
    var reopensWhenLost: Bool { true }
    func gestures() throws(DeviceError) -> AsyncStream<ButtonGesture> {
        let open = opens.withLock { value -> Int in
            value += 1
            return value
        }
        if open == 2 { throw DeviceError(.buttons, "gpiochip9 is gone") }
        return AsyncStream { continuation in
            continuation.yield(.press)
            if open == 1 { continuation.finish() }  // the chip went away
        }
    }
}

@Suite("The button service")
struct ButtonServiceTests {
    @Test(
        "should report buttons lost with their chip, and take them back when the chip returns, trying every 3 s of its clock"
    )
    func lostAndBack() async throws {
        let bus = EventBus()
        let buttons = LosingButtons()
        let clock = HeldClock()
        let service = ButtonService(buttons: buttons, bus: bus, logger: Logger(label: "test"), clock: clock)
        let events = Lock<[Event]>([])
        let listening = Task {
            for await event in bus.events { events.withLock { $0.append(event) } }
        }
        defer { listening.cancel() }
        let running = Task { try await service.run() }
        defer { running.cancel() }
        // The lines lost, then not there at the second open: each time the service waits 3 s to try again.
        for open in 1...2 {
            let deadlines = await clock.sleepers()
            #expect(deadlines == [clock.uptime + .seconds(3)], "the wait after open \(open)")
            #expect(buttons.opens.withLock { $0 } == open, "no try before the wait's end")
            clock.advance(by: .seconds(3))
        }
        #expect(await eventually { events.withLock { $0.count } == 5 })
        #expect(
            events.withLock { $0 } == [
                .button(.press), .device(.buttons, .missing("the button lines were lost")),
                .device(.buttons, .missing("gpiochip9 is gone")), .device(.buttons, .available), .button(.press),
            ], "\(events.withLock { $0 })")
    }
}
