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
        #expect(await eventually(within: 5, every: .milliseconds(5)) { wakes.value == 2 })
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
        #expect(await eventually(within: 5, every: .milliseconds(5)) { asked.value == 1 })
        async let second = queue.ask { asked.add() }
        #expect(await eventually(within: 5, every: .milliseconds(5)) { asked.value == 2 })
        let taking = queue.beginTaking()
        #expect(taking?.number == queue.oldest?.number && queue.isTaking)
        #expect(queue.beginTaking() == nil, "one at a time")
        #expect(queue.finishTaking(.success(image))?.number == taking?.number)
        #expect(queue.finishTaking(.success(image)) == nil, "none is being taken now")
        #expect(queue.finishOldest(.success(image)) != nil)
        let widths = await [first, second].map { (try? $0.get())?.width }
        #expect(widths == [2, 2])
    }

    @Test("should fail a still that gets no frame in time, and wake the camera thread to look again")
    func timeout() async {
        let queue = StillQueue(timeout: .milliseconds(50))
        queue.open()
        let wakes = Counter()
        let result = await queue.ask { wakes.add() }
        if case .failure(let error) = result {
            #expect(error.message.hasPrefix("no still within"))
        } else {
            Issue.record("a still without a frame")
        }
        #expect(wakes.value == 2, "once when asked, once when it timed out")
        #expect(queue.isEmpty && !queue.isTaking)
    }
}
