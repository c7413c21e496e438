import SnapImaging
import SnapScreens
import Testing

@Suite("A canvas drawing into a picture's own bytes")
struct CanvasTests {
    @Test("should give the picture a canvas and its snapshot give, byte for byte, at widths of any remainder")
    func drawsInPlace() {
        func scene(_ canvas: Canvas) {
            canvas.fill(canvas.bounds, Color(0.55, 0.38, 0.24))
            canvas.arc(
                centerX: 40, centerY: 30, radius: 20, from: 0, to: 2 * .pi, Color(0.95, 0.95, 0.93), lineWidth: 9)
            canvas.text(
                "Simulated camera · 12:00", in: Rect(x: 5, y: 5, width: 90, height: 40), font: Font(size: 11),
                color: Color(1, 1, 1, 0.85), alignment: .trailing, maxLines: 2)
        }
        for (width, height) in [(101, 61), (160, 90), (7, 3)] {
            let canvas = Canvas(width: width, height: height)
            scene(canvas)
            let drawn = Canvas.drawing(width: width, height: height, scene)
            #expect(drawn.width == width && drawn.height == height)
            #expect(drawn.pixels == canvas.snapshot().pixels, "\(width)×\(height)")
            #expect(Set(drawn.pixels).count > 2, "something was drawn")
        }
    }
}
