import Foundation
import SnapImaging
import SnapScreens
import SnapTestSupport
import Testing

@testable import SnapDevices

@Suite("Zero-copy preview: camera buffers on a display plane (mocked)")
struct ScanoutTests {
    let released = Counter()

    func frame(fd: Int32 = 40) -> PreviewFrame {
        let scanout = Scanout(
            format: .nv12, width: 8, height: 4,
            planes: [.init(fd: fd, offset: 0, stride: 8), .init(fd: fd, offset: 32, stride: 8)])
        return PreviewFrame(
            width: 8, height: 4, timestamp: nil, scanout: scanout, convert: { nil }, release: { released.add() })
    }

    /// A canvas with the preview area punched out and a red band at the top, as a screen over the camera.
    func screens() -> Canvas {
        let canvas = Canvas(width: 8, height: 4)
        canvas.clear(Color(0, 0, 0))
        canvas.punch(canvas.bounds)
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 1), Color(1, 0, 0))
        return canvas
    }

    @Test("should scan the camera buffer out under a transparent hole, and give it back after the next flip")
    func scanout() throws {
        let mock = MockDisplay()
        let display = try DRMDisplay(card: "", calls: mock)
        var first: PreviewFrame? = frame(fd: 40)
        #expect(try display.present(screens(), over: first!))
        first = nil
        #expect(released.value == 0, "the buffer on screen stays with the display")
        #expect(mock.state.withLock { $0.imported.first?.planes.map(\.fd) } == [40, 40])
        #expect(mock.shownPixel(x: 3, y: 0) == [0, 0, 255, 255], "the band is opaque red")
        #expect(mock.shownPixel(x: 3, y: 2) == [0, 0, 0, 0], "the camera shows through the rest")
        #expect(display.previewPath.hasPrefix("zero copy"))

        #expect(try display.present(screens(), over: frame(fd: 41)))
        #expect(released.value == 1, "the first buffer went back once the second was on screen")
        let (presents, forgotten) = mock.state.withLock { ($0.videoPresents, $0.forgotten) }
        #expect(presents == [101, 102])
        #expect(forgotten == [101])
    }

    @Test("should hide the camera plane on screens without a preview once the planes are in use")
    func hides() throws {
        let mock = MockDisplay()
        let display = try DRMDisplay(card: "", calls: mock)
        #expect(try display.present(screens(), over: frame()))
        let opaque = Canvas(width: 8, height: 4)
        opaque.clear(Color(0, 0, 1))
        try display.present(opaque, change: .screen("processing"))
        #expect(mock.state.withLock { $0.videoPresents } == [101, 0])
        #expect(released.value == 1)
        #expect(mock.shownPixel(x: 1, y: 1) == [255, 0, 0, 255])
    }

    @Test("should compose on the CPU when the driver has no plane for the camera's format, and say why")
    func fallback() throws {
        let mock = MockDisplay()
        mock.state.withLock {
            $0.videoFailure = DriverFailure(.init(ENOTSUP), "/dev/dri/card0 has no overlay plane that scans out NV12")
        }
        let display = try DRMDisplay(card: "", calls: mock)
        #expect(try display.present(screens(), over: frame()) == false)
        #expect(try display.present(screens(), over: frame()) == false)
        #expect(mock.state.withLock { $0.enables } == 1, "tried once, not on every frame")
        #expect(display.previewPath == "composed on the CPU (/dev/dri/card0 has no overlay plane that scans out NV12)")
        #expect(released.value == 2, "frames not shown are let go at once")
    }

    @Test("should give up the plane path when the camera's buffers cannot be imported, or the panel is turned")
    func importFailure() throws {
        let mock = MockDisplay()
        mock.state.withLock { $0.importFailure = SystemError(EINVAL) }
        let display = try DRMDisplay(card: "", calls: mock)
        #expect(try display.present(screens(), over: frame()) == false)
        #expect(display.previewPath.contains("cannot be imported"))
        let turned = try DRMDisplay(card: "", rotation: 90, calls: MockDisplay())
        #expect(try turned.present(Canvas(width: 4, height: 8), over: frame()) == false)
    }

    @Test("should describe NV12 and YUV420 buffers as planes of one dmabuf, and no other format")
    func layouts() {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { memory.deallocate() }
        func buffer(_ format: FourCC, dmabufs: [(Int32, Int)]) -> CameraBuffer {
            var buffer = CameraBuffer(
                still: false, format: format, width: 640, height: 480, stride: 704, planes: [memory],
                planeBytes: [1], timestamp: .zero, sequence: 0, cookie: 0)
            buffer.dmabufs = dmabufs.map { (fd: $0.0, offset: $0.1) }
            return buffer
        }
        let nv12 = Scanout(buffer(.nv12, dmabufs: [(7, 0)]))
        #expect(nv12?.planes == [.init(fd: 7, offset: 0, stride: 704), .init(fd: 7, offset: 704 * 480, stride: 704)])
        let i420 = Scanout(buffer(.yuv420, dmabufs: [(7, 0), (7, 337_920), (7, 422_400)]))
        #expect(i420?.planes.map(\.offset) == [0, 337_920, 422_400])
        #expect(i420?.planes.map(\.stride) == [704, 352, 352])
        #expect(Scanout(buffer(.yuyv, dmabufs: [(7, 0)])) == nil)
        #expect(Scanout(buffer(.nv12, dmabufs: [])) == nil, "a buffer without a dmabuf (the mock's, MJPEG's)")
    }
}
