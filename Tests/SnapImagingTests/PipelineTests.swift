import SnapImaging
import SnapTestSupport
import Testing

@Suite("PhotoPipeline")
struct PipelineTests {
    @Test("should turn a quarter clockwise: the top-left mark ends top-right")
    func quarterTurn() {
        let turned = TestImages.marked(width: 64, height: 48).oriented(Orientation(quarterTurns: 1))
        #expect(turned.width == 48 && turned.height == 64)
        #expect(turned.rgb(x: 47, y: 0).red == 255 && turned.rgb(x: 47, y: 0).blue == 0)
        #expect(turned.rgb(x: 0, y: 0).red == 64)
    }

    @Test("should mirror, flip and half-turn consistently")
    func flips() {
        let image = TestImages.marked()
        #expect(image.oriented(Orientation(mirrored: true)).rgb(x: 63, y: 0).red == 255)
        #expect(image.oriented(Orientation(flipped: true)).rgb(x: 0, y: 47).red == 255)
        #expect(
            image.oriented(Orientation(quarterTurns: 2)) == image.oriented(Orientation(mirrored: true, flipped: true)))
        #expect(image.oriented(Orientation(quarterTurns: 3)).oriented(Orientation(quarterTurns: 1)) == image)
    }

    @Test("should average areas when shrinking, keeping the aspect ratio")
    func downscale() {
        let image = PixelImage(width: 400, height: 300, red: 100)
        let small = image.downscaled(toFit: 100)
        #expect(small.width == 100 && small.height == 75)
        #expect(small.rgb(x: 50, y: 40) == (100, 0, 0))
        #expect(image.downscaled(toFit: 1000) == image)
    }

    @Test("should keep the photo within the maximum size, and make a thumbnail")
    func process() throws {
        let pipeline = PhotoPipeline(
            orientation: Orientation(quarterTurns: 1), maxSide: 256, quality: 80, thumbnailSide: 64)
        let output = try pipeline.process(TestImages.marked(width: 640, height: 480))
        #expect(output.width == 192 && output.height == 256)
        #expect(try JPEG.size(of: output.photo) == (192, 256))
        #expect(try JPEG.size(of: output.thumbnail) == (48, 64))
    }
}
