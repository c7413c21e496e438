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
