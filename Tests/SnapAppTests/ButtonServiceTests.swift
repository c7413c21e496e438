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
    @Test("should report buttons lost with their chip, and take them back when the chip returns")
    func lostAndBack() async throws {
        let bus = EventBus()
        let buttons = LosingButtons()
        let service = ButtonService(
            buttons: buttons, bus: bus, logger: Logger(label: "test"), retryInterval: .milliseconds(20))
        let running = Task { try await service.run() }
        var events: [Event] = []
        for await event in bus.events {
            events.append(event)
            if events.count == 5 { break }
        }
        running.cancel()
        #expect(
            events == [
                .button(.press), .device(.buttons, .missing("the button lines were lost")),
                .device(.buttons, .missing("gpiochip9 is gone")), .device(.buttons, .available), .button(.press),
            ], "\(events)")
    }
}
