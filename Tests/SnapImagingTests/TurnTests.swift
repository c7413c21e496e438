import SnapImaging
import SnapTestSupport
import Testing

/// Every EXIF orientation, and the configured camera.rotation/hflip/vflip on top, turned once on the
/// small image (Tests/Imaging/check_orientation.py holds the photo against Pillow's exif_transpose).
@Suite("Every orientation")
struct TurnTests {
    static let exifValues = Array(1...8)
    /// Every camera.rotation with every combination of camera.hflip and camera.vflip.
    static let configured = (0..<4).flatMap { turns in
        [(false, false), (true, false), (false, true), (true, true)].map {
            Orientation(quarterTurns: turns, mirrored: $0.0, flipped: $0.1)
        }
    }

    /// A turn written plainly, pixel by pixel: the oracle for libyuv's rotations. A quarter turn
    /// clockwise moves (x, y) of the turned image to (y, height − 1 − x) of the source; the mirror and
    /// the flip then reverse the turned image's columns and rows.
    static func plainTurn(_ image: PixelImage, _ orientation: Orientation) -> PixelImage {
        let swaps = orientation.quarterTurns % 2 == 1
        let (width, height) = swaps ? (image.height, image.width) : (image.width, image.height)
        var pixels = [UInt8](repeating: 0, count: image.pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let tx = orientation.mirrored ? width - 1 - x : x
                let ty = orientation.flipped ? height - 1 - y : y
                let (sx, sy): (Int, Int) =
                    switch orientation.quarterTurns {
                    case 1: (ty, image.height - 1 - tx)
                    case 2: (image.width - 1 - tx, image.height - 1 - ty)
                    case 3: (image.width - 1 - ty, tx)
                    default: (tx, ty)
                    }
                for channel in 0..<4 {
                    pixels[(y * width + x) * 4 + channel] = image.pixels[(sy * image.width + sx) * 4 + channel]
                }
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    /// A plane as a grey image, to turn with `plainTurn`.
    static func grey(_ plane: [UInt8], width: Int, height: Int, stride: Int) -> PixelImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width { pixels[(y * width + x) * 4] = plane[y * stride + x] }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    @Test("should turn pixels as the plain turn does, for every orientation and odd sides", arguments: configured)
    func pixels(orientation: Orientation) {
        let image = TestImages.noise(width: 37, height: 23)
        #expect(image.oriented(orientation) == Self.plainTurn(image, orientation))
    }

    @Test("should make one turn of an EXIF orientation followed by the configured one", arguments: exifValues)
    func composed(value: Int) throws {
        let exif = try #require(Orientation(exifValue: value))
        let image = TestImages.noise(width: 9, height: 5)
        for camera in Self.configured {
            #expect(image.oriented(exif.then(camera)) == image.oriented(exif).oriented(camera), "\(value), \(camera)")
        }
        #expect(exif.then(.upright).isUpright == (value == 1))
        #expect(Orientation(quarterTurns: 2, mirrored: true, flipped: true).isUpright)
    }

    @Test("should turn YUV planes byte for byte as the plain turn does", arguments: configured)
    func planes(orientation: Orientation) throws {
        let jpeg = try JPEG.encode(TestImages.noise(width: 42, height: 26), quality: 90)
        let image = try JPEG.decodeYUV(jpeg)
        let turned = image.oriented(orientation)
        let swaps = orientation.quarterTurns % 2 == 1
        #expect((turned.width, turned.height) == (swaps ? (26, 42) : (42, 26)))
        let luma = Self.grey(image.luma, width: 42, height: 26, stride: image.lumaStride)
        #expect(
            Self.grey(turned.luma, width: turned.width, height: turned.height, stride: turned.lumaStride)
                == Self.plainTurn(luma, orientation))
        // Even sides: the chroma moves with its luma, unchanged.
        for (plane, turnedPlane) in [(image.blue, turned.blue), (image.red, turned.red)] {
            let chroma = Self.grey(plane, width: 21, height: 13, stride: 21)
            #expect(
                Self.grey(
                    turnedPlane, width: turned.chromaWidth, height: turned.chromaHeight, stride: turned.chromaWidth)
                    == Self.plainTurn(chroma, orientation))
        }
    }

    /// Blocks of 5 × 5 pixels in colours of their own: sharp colour edges, where chroma half a sample
    /// off shows (blurred noise hides it).
    static func colourBlocks(width: Int, height: Int) -> PixelImage {
        let colours = TestImages.noise(width: width / 5 + 1, height: height / 5 + 1)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let from = ((y / 5) * colours.width + x / 5) * 4
                for channel in 0..<3 { pixels[(y * width + x) * 4 + channel] = colours.pixels[from + channel] }
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    @Test(
        "should turn a photo of sharp colour edges as well as it keeps one upright, odd sides too",
        arguments: exifValues.dropFirst())
    func asGoodAsUpright(value: Int) throws {
        let source = Self.colourBlocks(width: 1013, height: 759)
        let plain = try JPEG.encode(source, quality: 95)
        let decoded = try JPEG.decode(plain)
        let correction = try #require(Orientation(exifValue: value))
        // 1000: AreaScale shrinks, its chroma grid moved where an odd side is reversed; 1013: no shrink,
        // the chroma interpolated; 400: libyuv's box filter. (A half-size decode with an odd reversed side
        // takes the BGRX path: Tests/Imaging/check_orientation.py.)
        for maxSide in [1000, 1013, 400] {
            func score(_ jpeg: [UInt8], _ turn: Orientation) throws -> Double {
                let output = try JPEG.decode(try PhotoPipeline(maxSide: maxSide).process(jpeg: jpeg).photo)
                let reference = Self.plainTurn(decoded, turn).scaled(to: output.width, output.height)
                return TestImages.psnr(output, reference)
            }
            let upright = try score(plain, .upright)
            let turned = try score(EXIFWriter.inserting(orientation: value, into: plain), correction)
            // Interpolating the chroma of two odd sides costs up to 0.26 dB on these edges.
            #expect(turned > upright - 0.3, "orientation \(value) at \(maxSide): \(turned) dB, upright \(upright)")
        }
    }

    @Test("should turn the photo, its thumbnail and the AI copy alike", arguments: exifValues)
    func thumbnailAndAICopy(value: Int) throws {
        let upright = TestImages.marked(width: 320, height: 240)
        let correction = try #require(Orientation(exifValue: value))
        let stored = try #require(
            (1...8).compactMap(Orientation.init(exifValue:)).map { upright.oriented($0) }.first {
                $0.oriented(correction) == upright
            })
        let file = EXIFWriter.inserting(orientation: value, into: try JPEG.encode(stored, quality: 95))
        for camera in [Orientation.upright, Orientation(quarterTurns: 1), Orientation(quarterTurns: 3, flipped: true)] {
            let expected = upright.oriented(camera)
            let output = try PhotoPipeline(orientation: camera, maxSide: 200, thumbnailSide: 64).process(jpeg: file)
            let copies = [
                ("photo", output.photo), ("thumbnail", output.thumbnail),
                ("AI copy", try AIImage.jpeg(from: output.photo, detail: .low)),
            ]
            for (name, jpeg) in copies {
                let decoded = try JPEG.decode(jpeg)
                let reference = expected.scaled(to: decoded.width, decoded.height)
                #expect(
                    (decoded.width > decoded.height) == (expected.width > expected.height),
                    "\(name) of orientation \(value), camera \(camera)")
                #expect(TestImages.psnr(decoded, reference) > 25, "\(name) of orientation \(value), camera \(camera)")
            }
        }
    }

    @Test("should let no metadata through, whichever way the photo turns", arguments: exifValues)
    func metadataStripped(value: Int) throws {
        let file = EXIFWriter.inserting(
            orientation: value, gps: true, into: try JPEG.encode(TestImages.marked(width: 99, height: 61), quality: 90))
        for pipeline in [PhotoPipeline(), PhotoPipeline(orientation: Orientation(quarterTurns: 1, mirrored: true))] {
            let output = try pipeline.process(jpeg: file)
            for jpeg in [output.photo, output.thumbnail] {
                let markers = EXIFWriter.markers(of: jpeg)
                #expect(!markers.contains { (0xE1...0xEF).contains($0) || $0 == 0xFE }, "markers \(markers)")
                #expect(jpeg.firstRange(of: Array("Exif".utf8)) == nil)
            }
        }
    }
}
