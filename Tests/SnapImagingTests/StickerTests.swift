import SnapImaging
import SnapTestSupport
import Testing

@Suite("StickerMaker")
struct StickerTests {
    let scene = PixelImage(width: 800, height: 600, blue: 60, green: 110, red: 150)

    /// The empty scene with a red disc of `radius` at (`cx`, `cy`).
    private func withDisc(cx: Int = 400, cy: Int = 300, radius: Int = 100) -> PixelImage {
        var image = scene
        for y in 0..<image.height {
            for x in 0..<image.width where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius {
                let index = (y * image.width + x) * 4
                image.pixels[index] = 30
                image.pixels[index + 1] = 30
                image.pixels[index + 2] = 220
            }
        }
        return image
    }

    @Test("should cut out what differs from the empty scene, with a white outline and clear surroundings")
    func cutOut() throws {
        let sticker = try StickerMaker(outline: 12).make(photo: withDisc(), reference: scene)
        // The disc is 200 px wide; with a 12 px outline on each side the sticker is about 224 px.
        #expect((216...236).contains(sticker.width), "\(sticker.width)")
        #expect((216...236).contains(sticker.height), "\(sticker.height)")
        let middle = (sticker.height / 2 * sticker.width + sticker.width / 2) * 4
        #expect(sticker.pixels[middle + 3] == 255)
        #expect(sticker.pixels[middle + 2] > 200 && sticker.pixels[middle] < 60, "the disc's red inside")
        let ring = (sticker.height / 2 * sticker.width + 4) * 4
        #expect(sticker.pixels[ring + 3] > 200)
        #expect(
            sticker.pixels[ring] > 240 && sticker.pixels[ring + 1] > 240 && sticker.pixels[ring + 2] > 240,
            "white outline")
        #expect(sticker.pixels[3] == 0, "the corner outside the circle is transparent")
        let png = try PNG.encode(withAlpha: sticker)
        #expect(Array(png[1...3]) == Array("PNG".utf8))
        #expect(png[25] == 6, "RGBA colour type")
    }

    @Test("should ignore specks of noise and keep the largest object")
    func largest() throws {
        var photo = withDisc(cx: 300, cy: 300, radius: 90)
        for (x, y) in [(700, 50), (720, 500), (50, 550)] {
            let index = (y * photo.width + x) * 4
            photo.pixels[index + 2] = 255
        }
        let sticker = try StickerMaker(outline: 0).make(photo: photo, reference: scene)
        #expect((170...190).contains(sticker.width), "\(sticker.width)")
    }

    @Test("should say why there is no sticker: no reference, or nothing in the photo")
    func failures() {
        #expect(throws: StickerMaker.Failure.noReference) { try StickerMaker().make(photo: scene, reference: nil) }
        #expect(throws: StickerMaker.Failure.nothingFound) { try StickerMaker().make(photo: scene, reference: scene) }
    }

    @Test("should make a round sticker and say why when the pipeline cannot cut the food out")
    func pipelineFallback() throws {
        let output = try PhotoPipeline(sticker: StickerMaker()).process(scene, reference: nil)
        #expect(output.stickerProblem == "no reference frame of the empty scene yet")
        #expect(!output.photo.isEmpty)
        let png = try #require(output.sticker)
        #expect(Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        // Round: the corners are transparent, the middle opaque, the rim white.
        let round = StickerMaker.round(photo: scene, side: 200)
        #expect(round.width == 200 && round.height == 200)
        let alpha = { (x: Int, y: Int) in round.pixels[(y * 200 + x) * 4 + 3] }
        #expect(alpha(0, 0) == 0 && alpha(199, 199) == 0 && alpha(100, 100) == 255)
        #expect(Array(round.pixels[(100 * 200 + 3) * 4..<(100 * 200 + 3) * 4 + 3]) == [255, 255, 255])
    }
}

@Suite("AIImage")
struct AIImageTests {
    @Test("should size the AI copy by the model's rules: 512 px for low detail, shortest side 768 for high")
    func sizes() {
        #expect(AIImage.size(width: 4056, height: 3040, detail: .low) == (512, 383))
        #expect(AIImage.size(width: 2048, height: 1536, detail: .high) == (1024, 768))
        // 1024.7 is truncated as the service does: 1025 would cost a third column of tiles.
        #expect(AIImage.size(width: 3040, height: 4056, detail: .high) == (768, 1024))
        #expect(AIImage.size(width: 2028, height: 1520, detail: .high) == (1024, 768))
        #expect(AIImage.size(width: 600, height: 400, detail: .high) == (600, 400), "never larger than the photo")
    }

    @Test("should count image tokens by the tiling rule")
    func tokens() {
        #expect(AIImage.tokens(width: 2048, height: 1536, detail: .low) == 85)
        #expect(AIImage.tokens(width: 2048, height: 1536, detail: .high) == 85 + 170 * 4)
        #expect(AIImage.tokens(width: 2028, height: 1520, detail: .high) == 85 + 170 * 4, "not 6 tiles")
        let mini = AIImage.TokenRates.forModel("gpt-4o-mini")
        #expect(AIImage.tokens(width: 2028, height: 1520, detail: .low, rates: mini) == 2833)
        #expect(AIImage.tokens(width: 2028, height: 1520, detail: .high, rates: mini) == 2833 + 5667 * 4)
    }

    @Test("should encode the AI copy at that size")
    func jpeg() throws {
        let photo = try JPEG.encode(TestImages.noise(width: 2048, height: 1536), quality: 80)
        let copy = try AIImage.jpeg(from: photo, detail: .low)
        #expect(try JPEG.size(of: copy) == (512, 384))
        #expect(copy.count < photo.count / 8)
    }
}
