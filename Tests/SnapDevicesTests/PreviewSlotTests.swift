import SnapDevices
import SnapImaging
import Testing

@Suite("PreviewSlot")
struct PreviewSlotTests {
    private func frame(_ shade: UInt8) -> PixelImage { PixelImage(width: 2, height: 2, red: shade) }

    @Test("should hand over the newest frame and count the ones it dropped")
    func newestWins() async {
        let slot = PreviewSlot()
        slot.put(frame(1))
        slot.put(frame(2))
        slot.put(frame(3))
        #expect(await slot.next() == frame(3))
        #expect(slot.droppedFrames == 2)
    }

    @Test("should wake a waiting reader with the next frame")
    func waits() async {
        let slot = PreviewSlot()
        async let taken = slot.next()
        try? await Task.sleep(for: .milliseconds(50))
        slot.put(frame(7))
        #expect(await taken == frame(7))
        #expect(slot.droppedFrames == 0)
    }

    @Test("should give nil to a waiting reader whose task is cancelled")
    func cancelled() async {
        let slot = PreviewSlot()
        let reader = Task { await slot.next() }
        try? await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        #expect(await reader.value == nil)
    }
}
