import Foundation
import SnapImaging
import SnapScreens
import Testing

@testable import SnapDevices

@Suite("Partial redraws: only the changed part goes to the panel")
struct PartialRedrawTests {
    func noise(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// A panel's memory for a canvas of `width` × `height` turned by `rotation`, with padded rows.
    func panel(_ blit: PanelBlit, width: Int, height: Int) -> (bytes: [UInt8], stride: Int) {
        let size = PanelBlit.canvasSize(panelWidth: width, height: height, rotation: blit.rotation)
        let stride = size.width * (blit.format == .rgb565 ? 2 : 4) + 8
        return ([UInt8](repeating: 0, count: stride * size.height), stride)
    }

    @Test(
        "should copy a changed region to where a whole copy puts it, at every turn and in every panel format",
        arguments: [0, 90, 180, 270], [PanelFormat.xrgb8888, .xbgr8888, .rgb565])
    func regionCopy(rotation: Int, format: PanelFormat) {
        let (width, height) = (13, 7)
        let before = PixelImage(width: width, height: height, pixels: noise(width * height * 4, seed: 1))
        var after = before
        let region = PixelRegion(x: 3, y: 2, width: 5, height: 4)
        let fresh = noise(width * height * 4, seed: 2)
        for y in region.y..<region.y + region.height {
            for x in region.x..<region.x + region.width {
                for byte in 0..<4 { after.pixels[(y * width + x) * 4 + byte] = fresh[(y * width + x) * 4 + byte] }
            }
        }
        let blit = PanelBlit(rotation: rotation, format: format)
        var (partial, stride) = panel(blit, width: width, height: height)
        var (whole, _) = panel(blit, width: width, height: height)
        before.withFramePixels { frame in
            partial.withUnsafeMutableBufferPointer { blit.copy(frame, to: $0.baseAddress!, stride: stride) }
        }
        after.withFramePixels { frame in
            partial.withUnsafeMutableBufferPointer {
                blit.copy(frame, region: region, to: $0.baseAddress!, stride: stride)
            }
            whole.withUnsafeMutableBufferPointer { blit.copy(frame, to: $0.baseAddress!, stride: stride) }
        }
        #expect(partial == whole)
        #expect(partial != panel(blit, width: width, height: height).bytes, "something was copied")
    }

    /// Whether the DRM buffer on screen holds exactly the canvas (XRGB8888: B, G, R in memory).
    func showsCanvas(_ mock: MockDisplay, _ canvas: Canvas) -> Bool {
        canvas.withFrame { frame in
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let pixel = frame.rgb(x: x, y: y)
                    let shown = mock.shownPixel(x: x, y: y)
                    if shown[0] != pixel.blue || shown[1] != pixel.green || shown[2] != pixel.red { return false }
                }
            }
            return true
        }
    }

    @Test("should keep both DRM buffers right through partial redraws: each frame shown is the whole canvas")
    func drmBuffers() throws {
        let mock = MockDisplay(width: 24, height: 12)
        let display = try DRMDisplay(card: "", calls: mock)
        let canvas = Canvas(width: 24, height: 12)
        canvas.clear(Color(0.2, 0.3, 0.4))
        try display.present(canvas, change: .screen("ready"))
        #expect(showsCanvas(mock, canvas))
        // Stickers moving: each frame changes a small part, never the same part twice in a row.
        let parts = [
            PixelRegion(x: 1, y: 1, width: 4, height: 3), PixelRegion(x: 10, y: 5, width: 6, height: 6),
            PixelRegion(x: 18, y: 0, width: 5, height: 4), PixelRegion(x: 2, y: 8, width: 3, height: 3),
            PixelRegion(x: 9, y: 2, width: 2, height: 2),
        ]
        // One part a frame, then two at once.
        let frames = parts.map { [$0] } + [[parts[0], parts[2]], [parts[1], parts[3]], [parts[4], parts[0]]]
        for (index, changed) in frames.enumerated() {
            let shade = Double(index + 1) / Double(frames.count + 1)
            for part in changed {
                canvas.fill(
                    Rect(x: Double(part.x), y: Double(part.y), width: Double(part.width), height: Double(part.height)),
                    Color(shade, 1 - shade, 0.5))
            }
            try display.present(canvas, change: .regions(changed))
            #expect(showsCanvas(mock, canvas), "frame \(index + 2): the buffer flipped in holds the whole canvas")
        }
    }

    @Test("should copy only the regions into a framebuffer, leaving the rest as it was")
    func framebufferRegion() throws {
        let mock = MockDisplay(width: 6, height: 4, bitsPerPixel: 32)
        let display = try FramebufferDisplay(path: "/dev/fb0", calls: mock)
        let canvas = Canvas(width: 6, height: 4)
        canvas.clear(Color(0, 0, 1))
        try display.present(canvas, change: .screen("ready"))
        canvas.clear(Color(1, 0, 0))
        try display.present(
            canvas,
            change: .regions([
                PixelRegion(x: 1, y: 1, width: 2, height: 2), PixelRegion(x: 4, y: 3, width: 1, height: 1),
            ]))
        let stride = mock.framebuffer.stride
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { (0..<3).map { mock.screen[y * stride + x * 4 + $0] } }
        #expect(
            pixel(1, 1) == [0, 0, 255] && pixel(2, 2) == [0, 0, 255] && pixel(4, 3) == [0, 0, 255],
            "the regions are red")
        #expect(pixel(0, 0) == [255, 0, 0] && pixel(3, 1) == [255, 0, 0], "the rest is still blue")
    }
}
