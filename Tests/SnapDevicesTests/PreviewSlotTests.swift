import SnapDevices
import SnapFiles
import SnapImaging
import SnapTestSupport
import Synchronization
import Testing

@Suite("PreviewSlot")
struct PreviewSlotTests {
    private func frame(_ shade: UInt8) -> PreviewFrame { PreviewFrame(PixelImage(width: 2, height: 2, red: shade)) }

    @Test("should hand over the newest frame and count the ones it dropped")
    func newestWins() async {
        let slot = PreviewSlot()
        slot.put(frame(1))
        slot.put(frame(2))
        slot.put(frame(3))
        #expect(await slot.next()?.image == frame(3).image)
        #expect(slot.droppedFrames == 2)
    }

    @Test("should wake a waiting reader with the next frame")
    func waits() async {
        let slot = PreviewSlot()
        async let taken = slot.next()
        #expect(await eventually(every: .milliseconds(5)) { slot.isAwaited }, "the reader waits")
        slot.put(frame(7))
        #expect(await taken?.image == frame(7).image)
        #expect(slot.droppedFrames == 0)
    }

    @Test("should be an async sequence of the newest frames")
    func sequence() async {
        let slot = PreviewSlot()
        let taken = Counter()
        let reader = Task {
            var shades: [UInt8] = []
            for await frame in slot {
                shades.append(frame.image?.rgb(x: 0, y: 0).red ?? 0)
                taken.add()
                if shades.count == 2 { break }
            }
            return shades
        }
        slot.put(frame(4))
        #expect(await eventually(every: .milliseconds(5)) { taken.value == 1 })
        slot.put(frame(5))
        #expect(await reader.value == [4, 5])
    }

    @Test("should give nil to a waiting reader whose task is cancelled")
    func cancelled() async {
        let slot = PreviewSlot()
        let reader = Task { await slot.next() }
        #expect(await eventually(every: .milliseconds(5)) { slot.isAwaited }, "the reader waits")
        reader.cancel()
        #expect(await reader.value == nil)
    }
}

@Suite("PreviewFrame")
struct PreviewFrameTests {
    @Test("should give a camera buffer back when a newer frame drops it, and convert a frame once")
    func releasesDroppedBuffers() async {
        let released = Counter()
        let conversions = Counter()
        func buffer(_ shade: UInt8) -> PreviewFrame {
            PreviewFrame(
                width: 2, height: 2, timestamp: nil,
                convert: {
                    conversions.add()
                    return PixelImage(width: 2, height: 2, red: shade)
                }, release: { released.add() })
        }
        let slot = PreviewSlot()
        slot.put(buffer(1))
        slot.put(buffer(2))
        #expect(released.value == 1, "the stale frame's buffer went back as soon as it was dropped")
        var taken = await slot.next()
        #expect(taken?.image?.rgb(x: 0, y: 0).red == 2)
        #expect(taken?.image != nil)
        #expect(conversions.value == 1)
        slot.put(buffer(3))
        #expect(released.value == 1, "the frame being drawn still holds its buffer")
        taken = nil
        #expect(released.value == 2)
    }
}

final class Counter: Sendable {
    private let count = Lock(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
