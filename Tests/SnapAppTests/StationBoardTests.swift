import Foundation
import SnapConfig
import SnapCore
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

@testable import SnapApp

/// The page's side of the one writer: a settings change goes into the bus like any event, and the page
/// goes on only once the station's loop made it (or stopped).
@Suite("The station's board: the page's changes made by the loop")
struct StationBoardTests {
    @Test("should answer a change with the settings the machine made of it, in the order the changes were sent")
    func changesInOrder() async throws {
        var config = StationConfig()
        config.group.names = []
        let bus = EventBus()
        let board = StationBoard(bus: bus, config: config)
        // The station's loop, as StationService runs it: each event to the machine, then to the board.
        let loop = Task {
            var machine = StationMachine(settings: config.stationSettings(aiConfigured: false))
            var handled: [Event] = []
            for await stamped in bus.stamped {
                _ = machine.handle(stamped.event, now: Instant(uptime: .zero, wall: Date()))
                board.note(machine, ticket: stamped.ticket)
                handled.append(stamped.event)
            }
            return handled
        }
        bus.send(.heartbeat)  // another port's event, with no number: nobody waits for it
        async let first = board.change(.joined("Family"))
        async let second = board.change(.form(RuntimeSettings(countdownSeconds: 5), mode: nil))
        let (one, two) = await (first, second)
        let last = RuntimeSettings(countdownSeconds: 5, groups: ["Family"])
        #expect(one != nil && two != nil)
        #expect(board.status().owner == last && board.status().inForce.countdownSeconds == 5)
        // Each answered after its own change was made (in whichever order the two were sent).
        #expect(one?.owner.groups == ["Family"] && two?.owner.countdownSeconds == 5)
        bus.finish()
        #expect(await loop.value.count == 3)
    }

    @Test("should let a page waiting for a change go on when the station stops, without it")
    func stopped() async {
        let bus = EventBus()
        let board = StationBoard(bus: bus, config: StationConfig())
        let waiting = Task { await board.change(.flash(false)) }
        // Nothing runs the loop: the change waits until the station says it stopped.
        #expect(await eventually(every: .milliseconds(5)) { board.pendingChanges == 1 })
        board.stopped()
        #expect(await waiting.value == nil)
        #expect(await board.change(.flash(false)) == nil, "after the stop, at once")
    }
}
