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

    /// Area averaging written plainly: the oracle for libyuv's box filter.
    private func areaAverage(_ image: PixelImage, _ width: Int, _ height: Int) -> PixelImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let xs = (x * image.width / width)..<max(x * image.width / width + 1, (x + 1) * image.width / width)
                let ys =
                    (y * image.height / height)..<max(y * image.height / height + 1, (y + 1) * image.height / height)
                for channel in 0..<3 {
                    var sum = 0
                    for sy in ys { for sx in xs { sum += Int(image.pixels[(sy * image.width + sx) * 4 + channel]) } }
                    pixels[(y * width + x) * 4 + channel] = UInt8(
                        (sum + xs.count * ys.count / 2) / (xs.count * ys.count))
                }
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    @Test("should downscale like a plain area average (PSNR over 35 dB)")
    func boxMatchesOracle() {
        let image = TestImages.noise(width: 1200, height: 900).blurred(radius: 2)
        let scaled = image.downscaled(toFit: 400)
        #expect(scaled.width == 400 && scaled.height == 300)
        #expect(TestImages.psnr(scaled, areaAverage(image, 400, 300)) > 35)
    }

    @Test("should not alias at odd ratios: pure noise at 3:1 stays close to the area average")
    func oddRatio() {
        // libyuv's box filter alone falls back to bilinear here and scores about 17 dB.
        let image = TestImages.noise(width: 1200, height: 900)
        #expect(TestImages.psnr(image.downscaled(toFit: 400), areaAverage(image, 400, 300)) > 24)
    }

    @Test("should decode a 4056×3040 photo at half size and keep 2028×1520 for a 2048 maximum")
    func dctTolerance() throws {
        let jpeg = try JPEG.encode(TestImages.marked(width: 4056, height: 3040), quality: 80)
        let output = try PhotoPipeline(maxSide: 2048).process(jpeg: jpeg)
        #expect((output.width, output.height) == (2028, 1520))
        let smaller = try PhotoPipeline(maxSide: 1000).process(jpeg: jpeg)
        #expect((smaller.width, smaller.height) == (1000, 750))
    }

    @Test("should give the same photo through the YUV path as through the BGRX path")
    func yuvMatchesBGRX() throws {
        let jpeg = try JPEG.encode(TestImages.noise(width: 1600, height: 1200).blurred(radius: 2), quality: 90)
        #expect(JPEG.isYUV420(jpeg))
        let gate = QualityGate(minBrightness: 0.1, minSharpness: 1)
        let yuv = try PhotoPipeline(maxSide: 700, gate: gate).process(jpeg: jpeg)
        // A filter at intensity 0 changes nothing but forces the BGRX path.
        let bgrx = try PhotoPipeline(maxSide: 700, filter: .sepia, intensity: 0, gate: gate).process(
            JPEG.decode(jpeg, minimumLongestSide: 700))
        #expect((yuv.width, yuv.height) == (bgrx.width, bgrx.height))
        #expect(TestImages.psnr(try JPEG.decode(yuv.photo), try JPEG.decode(bgrx.photo)) > 33)
        let a = try #require(yuv.measurement)
        let b = try #require(bgrx.measurement)
        #expect(abs(a.brightness - b.brightness) < 0.02)
        #expect(abs(a.sharpness - b.sharpness) / b.sharpness < 0.25)
        #expect(try JPEG.size(of: yuv.thumbnail) == JPEG.size(of: bgrx.thumbnail))
    }

    @Test("should report the quality gate's verdict and measurements")
    func gate() throws {
        let pipeline = PhotoPipeline(gate: QualityGate(minBrightness: 0.12, minSharpness: 30))
        let dark = try pipeline.process(PixelImage(width: 640, height: 480, blue: 5, green: 5, red: 5))
        #expect(dark.verdict == .tooDark)
        #expect((dark.measurement?.brightness ?? 1) < 0.05)
        #expect(try pipeline.process(TestImages.noise(width: 640, height: 480)).verdict == .good)
        #expect(try PhotoPipeline().process(PixelImage(width: 64, height: 48)).verdict == .good, "no gate, no verdict")
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

@Suite("YUV path")
struct YUVPathTests {
    @Test(
        "should size planes as TurboJPEG's format says for odd dimensions, padding with the edge",
        arguments: [
            (2048, 1535), (1, 1), (3, 5), (1535, 2048),
        ])
    func oddSizes(size: (Int, Int)) throws {
        let source = try JPEG.encode(TestImages.noise(width: 4096, height: 4096), quality: 80)
        let image = try JPEG.decodeYUV(source, minimumLongestSide: 4096).scaled(to: size.0, size.1)
        #expect(image.luma.count == ((size.0 + 1) & ~1) * ((size.1 + 1) & ~1))
        #expect(image.blue.count == ((size.0 + 1) / 2) * ((size.1 + 1) / 2))
        let encoded = try JPEG.encode(image, quality: 80)
        #expect(try JPEG.size(of: encoded) == size)
        if size.1 % 2 == 1 {
            let stride = image.lumaStride
            #expect(
                image.luma[size.1 * stride..<(size.1 + 1) * stride]
                    == image.luma[(size.1 - 1) * stride..<size.1 * stride])
        }
    }

    @Test("should process the full-size decode of a 12 MP photo (the crash the benchmark found)")
    func fullSize() throws {
        let jpeg = try JPEG.encode(TestImages.noise(width: 4056, height: 3040), quality: 85)
        var pipeline = PhotoPipeline(maxSide: 2048)
        pipeline.dctTolerance = 1
        let output = try pipeline.process(jpeg: jpeg)
        #expect((output.width, output.height) == (2048, 1535))
    }
}
