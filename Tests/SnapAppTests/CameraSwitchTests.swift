import Logging
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapTestSupport
import Synchronization
import Testing

@Suite("The camera switch: several cameras as one")
struct CameraSwitchTests {
    @Test("should stream the selected camera, switch while streaming, and take stills from the one selected")
    func switching() async throws {
        let (first, second) = (CountingCamera(), CountingCamera())
        let cameras = CameraSwitch([.init(name: "one", camera: first), .init(name: "two", camera: second)])
        let slot = PreviewSlot()
        let started = Lock(0)
        let streaming = Task { try await cameras.streamPreview(into: slot) { started.withLock { $0 += 1 } } }
        defer { streaming.cancel() }
        #expect(await eventually(every: .milliseconds(5)) { first.streaming.withLock { $0 } })
        cameras.select(1)
        #expect(
            await eventually(every: .milliseconds(5)) {
                second.streaming.withLock { $0 } && !first.streaming.withLock { $0 }
            })
        #expect(cameras.selected == 1 && started.withLock { $0 } == 2)
        _ = try await cameras.captureStill()
        #expect(first.opens.withLock { $0 } == 1 && second.opens.withLock { $0 } == 1)
        cameras.select(7)  // not a camera: the first
        #expect(
            await eventually(every: .milliseconds(5)) {
                first.streaming.withLock { $0 } && !second.streaming.withLock { $0 }
            })
        await #expect(throws: DeviceError.self) { try await second.captureStill() }
        streaming.cancel()
        #expect(await eventually(every: .milliseconds(5)) { !first.streaming.withLock { $0 } })
    }
}
