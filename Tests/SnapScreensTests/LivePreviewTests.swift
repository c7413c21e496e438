import SnapCore
import SnapScreens
import Testing

@Suite("Screens over a camera plane")
struct LivePreviewTests {
    @Test("should leave the ready screen's background transparent when the camera is on a plane beneath")
    func behind() {
        let canvas = Canvas(width: 800, height: 480)
        let ready = Screen.ready(
            ReadyScreen(
                mode: .group, groupName: "Friends", totals: Macros(calories: 0, protein: 0, carbs: 0, fats: 0),
                mealThumbnails: [], groupPhotoAvailable: true, analysesLeft: 10, missingDevices: []))
        ScreenRenderer(images: .disk()).draw(ready, live: .behind, on: canvas)
        let pixels = canvas.snapshot()
        let alpha = { (x: Int, y: Int) in pixels.pixels[(y * 800 + x) * 4 + 3] }
        #expect(alpha(400, 240) == 0, "the middle shows the camera")
        let drawn = stride(from: 0, to: pixels.pixels.count, by: 4).filter { pixels.pixels[$0 + 3] > 0 }.count
        #expect(drawn > 800 * 20, "the bars and text are drawn over it")

        ScreenRenderer(images: .disk()).draw(ready, preview: nil, on: canvas)
        #expect(canvas.snapshot().pixels[(240 * 800 + 400) * 4 + 3] == 255, "without a plane the background is drawn")
    }
}

@Suite("Screens in the quiet hours")
struct DimmedScreenTests {
    @Test("should draw every screen darker when dimmed, its texts still drawn, and the camera plane dimmed too")
    func dimmed() {
        let ready = Screen.ready(
            ReadyScreen(
                mode: .group, groupName: "Friends", totals: Macros(calories: 0, protein: 0, carbs: 0, fats: 0),
                mealThumbnails: [], groupPhotoAvailable: true, analysesLeft: 10, missingDevices: []))
        func brightness(_ renderer: ScreenRenderer, live: LivePreview?) -> (mean: Double, texts: [String], hole: UInt8)
        {
            let canvas = Canvas(width: 800, height: 480)
            renderer.draw(ready, live: live, on: canvas)
            let pixels = canvas.snapshot().pixels
            var sum = 0
            for index in stride(from: 0, to: pixels.count, by: 4) {
                sum += Int(pixels[index]) + Int(pixels[index + 1]) + Int(pixels[index + 2])
            }
            return (Double(sum) / Double(pixels.count / 4 * 3), canvas.drawnTexts, pixels[(240 * 800 + 400) * 4 + 3])
        }
        var renderer = ScreenRenderer(images: .disk())
        let bright = brightness(renderer, live: nil)
        renderer.dimmed = true
        let dim = brightness(renderer, live: nil)
        #expect(bright.mean > 20, "a ready screen with light on it: \(bright.mean)")
        let ratio = dim.mean / bright.mean
        #expect(abs(ratio - (1 - ScreenRenderer.dimming)) < 0.05, "dimmed to \(ratio) of its brightness")
        #expect(dim.texts == bright.texts, "the same words, darker")
        let over = brightness(renderer, live: .behind)
        #expect(over.hole > 100, "the camera's hole is shaded as well: alpha \(over.hole)")
    }
}
