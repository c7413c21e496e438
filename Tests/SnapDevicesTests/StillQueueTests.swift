import SnapDevices
import SnapImaging
import SnapTestSupport
import Testing

@Suite("StillQueue: the stills asked of a camera, oldest first, each with its timeout")
struct StillQueueTests {
    let image = PixelImage(width: 2, height: 2, blue: 1, green: 2, red: 3)

    @Test("should refuse a still while no session is open, and fail every waiting one when it closes")
    func openAndClose() async {
        let queue = StillQueue(timeout: .seconds(60))
        if case .failure(let error) = await queue.ask(wake: {}) {
            #expect(error.message == "the camera is not running")
        } else {
            Issue.record("a still from a closed camera")
        }
        queue.open()
        let wakes = Counter()
        async let first = queue.ask { wakes.add() }
        async let second = queue.ask { wakes.add() }
        #expect(await eventually(every: .milliseconds(5)) { wakes.value == 2 })
        queue.close(failing: DeviceError(.camera, "unplugged"))
        let results = await [first, second]
        #expect(results.allSatisfy { if case .failure(let error) = $0 { error.message == "unplugged" } else { false } })
        #expect(queue.isEmpty)
    }

    @Test("should serve the oldest first, and mark only one as being taken at a time")
    func oldestFirst() async {
        let queue = StillQueue(timeout: .seconds(60))
        queue.open()
        let asked = Counter()
        async let first = queue.ask { asked.add() }
        #expect(await eventually(every: .milliseconds(5)) { asked.value == 1 })
        async let second = queue.ask { asked.add() }
        #expect(await eventually(every: .milliseconds(5)) { asked.value == 2 })
        let taking = queue.beginTaking()
        #expect(taking?.number == queue.oldest?.number && queue.isTaking)
        #expect(queue.beginTaking() == nil, "one at a time")
        #expect(queue.finishTaking(.success(image))?.number == taking?.number)
        #expect(queue.finishTaking(.success(image)) == nil, "none is being taken now")
        #expect(queue.finishOldest(.success(image)) != nil)
        let widths = await [first, second].map { (try? $0.get())?.width }
        #expect(widths == [2, 2])
    }

    @Test(
        "should fail a still that gets no frame by its timeout of the clock, and wake the camera thread to look again"
    )
    func timeout() async {
        let clock = HeldClock()
        let queue = StillQueue(timeout: .seconds(5), clock: clock)
        queue.open()
        let wakes = Counter()
        async let result = queue.ask { wakes.add() }
        // The request's timer waits for 5 s of the clock; at 4.999 s it still waits.
        #expect(await eventually(every: .milliseconds(2)) { clock.deadlines == [.seconds(5)] })
        clock.advance(by: .seconds(5) - .milliseconds(1))
        #expect(await eventually(every: .milliseconds(2)) { clock.deadlines == [.seconds(5)] })
        #expect(wakes.value == 1 && !queue.isEmpty, "asked once, still waiting")
        clock.advance(by: .milliseconds(1))
        if case .failure(let error) = await result {
            #expect(error.message.hasPrefix("no still within 5"))
        } else {
            Issue.record("a still without a frame")
        }
        #expect(wakes.value == 2, "once when asked, once when it timed out")
        #expect(queue.isEmpty && !queue.isTaking)
    }
}
