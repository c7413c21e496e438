import Foundation
import SnapImaging
import SnapTestSupport
import Testing

@Suite("snapstation process", .startsProcesses)
struct ProcessCommandTests {
    let folder = TemporaryDirectory("process")

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = folder.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await StationProcess.run(["process"] + arguments, logPath: folder.path + "/process.log")
    }

    @Test("should turn a phone photo upright, shrink it, and drop its EXIF and GPS")
    func phonePhoto() async throws {
        // Stored on its side (a portrait shot held sideways), with orientation 6 and a GPS position.
        let upright = TestImages.marked(width: 600, height: 800)
        let stored = upright.oriented(Orientation(quarterTurns: 3))
        let input = try write(EXIFWriter.inserting(orientation: 6, into: JPEG.encode(stored, quality: 92)), "in.jpg")
        let result = try await run([
            input, "-o", folder.path + "/out.jpg", "--max", "400", "--thumbnail", folder.path + "/t.jpg",
        ])
        #expect(result.status == 0, "\(result.output)")
        let output = try #require(FileManager.default.contents(atPath: folder.path + "/out.jpg")).map { $0 }
        #expect(try JPEG.size(of: output) == (300, 400))
        #expect(!EXIFWriter.markers(of: output).contains(0xE1))
        #expect(try JPEG.decode(output).rgb(x: 5, y: 5).red > 200, "the mark is top-left again")
        let thumbnail = try #require(FileManager.default.contents(atPath: folder.path + "/t.jpg")).map { $0 }
        #expect(try JPEG.size(of: thumbnail) == (240, 320))
    }

    @Test("should apply a filter and cut a sticker against a reference")
    func filterAndSticker() async throws {
        let table = PixelImage(width: 640, height: 480, blue: 60, green: 110, red: 150)
        var photo = table
        for y in 140..<340 { for x in 220..<420 { photo.pixels[(y * 640 + x) * 4 + 2] = 250 } }
        let input = try write(JPEG.encode(photo, quality: 95), "meal.jpg")
        let reference = try write(JPEG.encode(table, quality: 95), "table.jpg")
        let result = try await run([
            input, "-o", folder.path + "/meal-out.jpg", "--filter", "mono", "--sticker-reference", reference,
        ])
        #expect(result.status == 0, "\(result.output)")
        let out = try JPEG.decode(
            #require(FileManager.default.contents(atPath: folder.path + "/meal-out.jpg")).map { $0 })
        let (r, g, b) = out.rgb(x: 320, y: 240)
        #expect(abs(Int(r) - Int(g)) < 6 && abs(Int(g) - Int(b)) < 6, "mono")
        let sticker = try #require(FileManager.default.contents(atPath: folder.path + "/meal-out-sticker.png")).map {
            $0
        }
        #expect(Array(sticker[1...3]) == Array("PNG".utf8))
    }

    @Test("should process a truncated file as far as it goes with a warning, and exit 1 on garbage or a missing file")
    func failures() async throws {
        let good = try JPEG.encode(TestImages.marked(width: 300, height: 200), quality: 80)
        let broken = try write(Array(good.prefix(good.count / 2)), "broken.jpg")
        let truncated = try await run([broken, "-o", folder.path + "/half.jpg"])
        #expect(truncated.status == 0, "\(truncated.output)")
        #expect(truncated.output.contains("broken.jpg: warning: Premature end of JPEG file"))
        let garbage = try write(Array(good.prefix(300)), "garbage.jpg")
        let corrupt = try await run([garbage, "-o", folder.path + "/x.jpg"])
        #expect(corrupt.status == 1)
        #expect(corrupt.output.contains("garbage.jpg: tjDecompress"), "TurboJPEG names the call that failed")
        let missing = try await run([folder.path + "/nope.jpg", "-o", folder.path + "/x.jpg"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("open(\(folder.path)/nope.jpg): No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/x.jpg"))
        #expect(try await run([garbage, "-o", folder.path + "/x.jpg", "--quality", "0"]).status != 0)
    }
}
