import Foundation
import SnapCore
import SnapImaging
import SnapScreens
import SnapTestSupport
import SnapText
import Testing

@Suite("ScreenRenderer")
struct ScreenRendererTests {
    static let sizes = [(800, 480), (480, 800), (1920, 1080), (480, 320)]
    let folder = TemporaryDirectory("screens")

    /// A processed sample photo on disk, as the gallery needs.
    private func samplePhoto() throws -> ProcessedPhoto {
        let output = try PhotoPipeline(maxSide: 1024).process(TestImages.marked(width: 1024, height: 768))
        let photo = ProcessedPhoto(
            id: PhotoID("s"), photoPath: folder.path + "/s.jpg", thumbnailPath: folder.path + "/t.jpg", takenAt: Date())
        try Data(output.photo).write(to: URL(fileURLWithPath: photo.photoPath))
        try Data(output.thumbnail).write(to: URL(fileURLWithPath: photo.thumbnailPath))
        return photo
    }

    /// Every screen in every language at every size: German is the longest, and nothing may be cut or
    /// drawn as a box for a glyph the font lacks (ß, ñ, œ, accented capitals).
    @Test(
        "should draw every screen in every language at every size without cutting any text",
        arguments: Language.allCases, sizes)
    func nothingCut(language: Language, size: (Int, Int)) throws {
        let photo = try samplePhoto()
        // Made once: a debug build takes long over each pixel, and this test draws dozens of screens.
        let capture = TestImages.marked(width: 640, height: 480)
        let preview = TestImages.marked(width: 800, height: 480)
        let words = Words(language)
        let renderer = ScreenRenderer(images: .disk(capture: { _ in capture }), words: words)
        let canvas = Canvas(width: size.0, height: size.1)
        var seen: Set<[UInt8]> = []
        let sticker = try StickerMaker().make(
            photo: TestImages.marked(width: 1024, height: 768), reference: PixelImage(width: 64, height: 48, green: 255)
        )
        let stickerPath = folder.path + "/sticker.png"
        try Data(PNG.encode(withAlpha: sticker)).write(to: URL(fileURLWithPath: stickerPath))
        let screens = ScreenGallery.screens(photo: photo, sticker: stickerPath, words: words)
        for (name, screen) in screens {
            renderer.draw(screen, preview: preview, on: canvas)
            let at = "\(name) in \(language.englishName) at \(size.0)x\(size.1)"
            #expect(canvas.cutTexts.isEmpty, "\(at) cut: \(canvas.cutTexts)")
            #expect(canvas.unknownGlyphTexts.isEmpty, "\(at) lacks glyphs for: \(canvas.unknownGlyphTexts)")
            seen.insert(canvas.snapshot().pixels)
        }
        #expect(seen.count == screens.count, "every screen looks different")
    }

    @Test("should draw ß, ñ, œ and accented capitals with the font the station depends on")
    func glyphs() {
        let canvas = Canvas(width: 400, height: 100)
        canvas.text("Straße · Año · Œuvre · ÉÀÇÖÜ", in: Rect(x: 0, y: 0, width: 400, height: 40), font: Font(size: 20))
        #expect(canvas.unknownGlyphTexts.isEmpty)
        // The check can fail: a character no font has a glyph for (Unicode's private use area) is found.
        canvas.text("\u{E000}", in: Rect(x: 0, y: 50, width: 400, height: 40), font: Font(size: 20))
        #expect(canvas.unknownGlyphTexts == ["\u{E000}"])
    }

    @Test("should report text that does not fit its box")
    func cutIsReported() {
        let canvas = Canvas(width: 200, height: 100)
        canvas.text(
            String(repeating: "word ", count: 40), in: Rect(x: 0, y: 0, width: 100, height: 20), font: Font(size: 14))
        #expect(canvas.cutTexts.count == 1)
        canvas.clear(.black)
        canvas.text("fits", in: Rect(x: 0, y: 0, width: 100, height: 20), font: Font(size: 14))
        #expect(canvas.cutTexts.isEmpty)
    }

    @Test("should shrink one line to fit instead of cutting it")
    func shrink() {
        let canvas = Canvas(width: 200, height: 100)
        canvas.text(
            "Press: photo · Hold: mode", in: Rect(x: 0, y: 0, width: 150, height: 30), font: Font(size: 14),
            shrinkToFit: true)
        #expect(canvas.cutTexts.isEmpty)
    }

    @Test("should write a PNG of the canvas's size")
    func png() throws {
        let canvas = Canvas(width: 321, height: 123)
        canvas.clear(.accent)
        try canvas.writePNG(to: folder.path + "/x.png")
        let bytes = try #require(FileManager.default.contents(atPath: folder.path + "/x.png")).map { $0 }
        #expect(Array(bytes[1...3]) == Array("PNG".utf8))
        let width = bytes[16...19].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20...23].reduce(0) { $0 << 8 | Int($1) }
        #expect((width, height) == (321, 123))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/x.png.partial"))
    }

    @Test("should put the live preview under the ready screen and not under a lock screen")
    func previewOnlyWhereShown() {
        let canvas = Canvas(width: 400, height: 240)
        let renderer = ScreenRenderer(images: .none)
        let red = PixelImage(width: 40, height: 24, red: 255)
        let ready = ReadyScreen(
            mode: .group, groupName: "G", totals: .zero, mealThumbnails: [], groupPhotoAvailable: true,
            analysesLeft: 10,
            missingDevices: [])
        renderer.draw(.ready(ready), preview: red, on: canvas)
        #expect(canvas.snapshot().rgb(x: 200, y: 120) == (255, 0, 0))
        renderer.draw(
            .locked(LockScreen(reason: .group("G"), limit: 10, remaining: .seconds(5))), preview: red, on: canvas)
        #expect(canvas.snapshot().rgb(x: 5, y: 120).red < 100)
    }
}

@Suite("The screens' words")
struct ScreenTextTests {
    let words = Words(.en)

    @Test("should write the countdown as HH:MM:SS, past 24 hours when it must")
    func clock() {
        #expect(Words.clock(.seconds(21 * 3600 + 30 * 60)) == "21:30:00")
        #expect(Words.clock(.seconds(59)) == "00:00:59")
        #expect(Words.clock(.seconds(25 * 3600)) == "25:00:00")
    }

    @Test("should say how long ago a shared photo was taken, and who shared it")
    func slideCaption() {
        #expect(words.age(.seconds(20)) == "just now")
        #expect(words.age(.seconds(12 * 60)) == "12 min ago")
        #expect(words.age(.seconds(3 * 3600 + 59)) == "3 h ago")
        #expect(words.age(.seconds(50 * 3600)) == "2 days ago")
        let photo = SharedPhoto(
            id: PhotoID("a"), group: "Family", member: "Hall", takenAt: .now, expiresAt: .now, path: "/none.jpg")
        let caption = words.slideCaption(Slide(photo: photo, age: .seconds(3 * 3600), index: 1, count: 4))
        #expect(caption.who == "Hall · 3 h ago" && caption.place == "2 / 4")
    }

    @Test("should word the lock screens for the group and for the AI limit")
    func lockWords() {
        let group = LockScreen(reason: .group("Family"), limit: 10, remaining: .seconds(3600))
        #expect(words.lockTitle(group) == "You've already shared a photo with Family today — see you tomorrow!")
        #expect(words.lockCountdown(group) == "Next photo in 01:00:00")
        let ai = LockScreen(reason: .aiLimit, limit: 10, remaining: nil)
        #expect(words.lockTitle(ai) == "Today's 10 meal analyses are used up — see you tomorrow!")
        #expect(words.lockCountdown(ai).contains("waiting for the clock"))
    }

    @Test("should say 'saved — will send when online' when the network is down")
    func offlineWords() {
        #expect(words.problem(.networkDown(group: "Family")).title == "Saved — will send when online")
        #expect(words.problem(.aiFailed(.notConfigured)).title == "AI service not configured")
    }

    @Test(
        "should say a device's, a library's or a server's failure in the station's language, its own words left to the log"
    )
    func problemDetailsInEveryLanguage() {
        let original = "libcamera: no camera found (HTTP 403, Premature end of JPEG file)"
        let kinds: [ProblemScreen.Kind] = [
            .cameraMissing(original), .captureFailed(original), .processingFailed(original),
            .uploadRejected(original), .storageFailed(original),
        ]
        for language in Language.allCases {
            let words = Words(language)
            let details = kinds.map { words.problem($0).detail }
            for (kind, detail) in zip(kinds, details) {
                #expect(
                    !detail.isEmpty && !detail.contains("libcamera") && !detail.contains("HTTP"), "\(language) \(kind)")
            }
            #expect(Set(details).count == kinds.count, "each says its own: \(language) \(details)")
            if language != .en {
                let english = kinds.map { Words(.en).problem($0).detail }
                #expect(zip(details, english).allSatisfy { $0 != $1 }, "\(language) is not English: \(details)")
            }
        }
    }
}
