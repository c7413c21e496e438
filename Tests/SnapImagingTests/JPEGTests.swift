import SnapImaging
import SnapTestSupport
import Testing

@Suite("JPEG")
struct JPEGTests {
    @Test("should encode and decode back to nearly the same pixels")
    func roundTrip() throws {
        let image = TestImages.marked(width: 320, height: 240)
        let decoded = try JPEG.decode(JPEG.encode(image, quality: 95))
        #expect(decoded.width == 320 && decoded.height == 240)
        #expect(TestImages.psnr(image, decoded) > 30)
    }

    @Test("should write no metadata segment: only JFIF, tables, frame and scan")
    func noMetadata() throws {
        let bytes = try JPEG.encode(TestImages.marked(), quality: 80)
        var markers: [UInt8] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            markers.append(marker)
            if marker == 0xDA { break }  // start of scan: entropy-coded data follows
            index += 2 + Int(bytes[index + 2]) << 8 + Int(bytes[index + 3])
        }
        #expect(markers.first == 0xE0, "APP0 JFIF")
        #expect(!markers.contains { (0xE1...0xEF).contains($0) }, "no APP1 (EXIF/XMP) … APP15")
        #expect(!markers.contains(0xFE), "no comment")
        #expect(markers.last == 0xDA)
    }

    @Test("should decode with DCT scaling (every M/8) to the smallest size still covering the target")
    func scaledDecode() throws {
        let bytes = try JPEG.encode(PixelImage(width: 4000, height: 3000, red: 200), quality: 80)
        #expect(try JPEG.size(of: bytes) == (4000, 3000))
        #expect(JPEG.scalingFactors.map { "\($0.numerator)/\($0.denominator)" }.contains("5/8"))
        let fiveEighths = try JPEG.decode(bytes, minimumLongestSide: 2048)
        #expect((fiveEighths.width, fiveEighths.height) == (2500, 1875), "half (2000) would be below 2048")
        let half = try JPEG.decode(bytes, minimumLongestSide: 1800)
        #expect((half.width, half.height) == (2000, 1500), "3/8 (1500) would be below 1800")
        let threeEighths = try JPEG.decode(bytes, minimumLongestSide: 1500)
        #expect((threeEighths.width, threeEighths.height) == (1500, 1125))
        let eighth = try JPEG.decode(bytes, minimumLongestSide: 400)
        #expect((eighth.width, eighth.height) == (500, 375))
        let full = try JPEG.decode(bytes, minimumLongestSide: 3600)
        #expect((full.width, full.height) == (4000, 3000), "7/8 (3500) would be below 3600")
        // The planar decode scales the same way, chroma planes included.
        let planes = try JPEG.decodeYUV(bytes, minimumLongestSide: 2048)
        #expect((planes.width, planes.height) == (2500, 1875))
    }

    @Test("should refuse garbage with the TurboJPEG call that failed (a truncated file decodes: HostileJPEGTests)")
    func corrupt() throws {
        let bytes = try JPEG.encode(TestImages.marked(width: 200, height: 200), quality: 80)
        #expect(throws: ImagingError.self) { try JPEG.decode(Array(bytes.prefix(200))) }
        #expect(throws: ImagingError.empty) { try JPEG.decode([]) }
        #expect {
            try JPEG.decode(Array("not a jpeg at all".utf8))
        } throws: { error in
            guard case .jpeg(let call, _) = error as? ImagingError else { return false }
            return call == "tjDecompressHeader3"
        }
    }

    @Test("should refuse a header announcing a huge image before allocating it")
    func hugeHeader() throws {
        var bytes = try JPEG.encode(TestImages.marked(width: 16, height: 16), quality: 80)
        // Rewrite the SOF0 frame's height and width fields to 60000 × 60000.
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0xEA
        bytes[sof + 6] = 0x60
        bytes[sof + 7] = 0xEA
        bytes[sof + 8] = 0x60
        #expect(throws: ImagingError.tooLarge(width: 60000, height: 60000)) { try JPEG.decode(bytes) }
    }
}

@Suite("Hostile JPEGs")
struct HostileJPEGTests {
    @Test("should refuse a JPEG of 10,000 scans at once, before decoding a pixel (it took 71 s before)")
    func manyScans() throws {
        let crafted = HostileJPEGs.manyScans(10_000)
        #expect(JPEGStructure(crafted).scans == 10_000)
        #expect(JPEGStructure(crafted).progressive)
        let started = ContinuousClock.now
        #expect(throws: ImagingError.tooManyScans(10_000)) { _ = try JPEG.decode(crafted) }
        #expect(throws: ImagingError.tooManyScans(10_000)) { _ = try PhotoPipeline().process(jpeg: crafted) }
        _ = started
        #expect(JPEGStructure(TestImages.jpeg()).scans == 1, "a baseline file has one scan")
    }

    @Test("should decode a truncated JPEG as far as it goes and say so, as libvips does, not refuse it")
    func truncated() throws {
        let whole = try JPEG.encode(TestImages.noise(width: 256, height: 256), quality: 90)
        let cut = HostileJPEGs.truncated(whole, keeping: 0.6)
        let warnings = JPEGWarnings()
        let image = try JPEG.decode(cut, warnings: warnings)
        #expect(image.width == 256 && image.height == 256)
        #expect(warnings.messages.contains { $0.contains("Premature end") }, "\(warnings.messages)")
        let output = try PhotoPipeline().process(jpeg: cut)
        #expect(!output.decodeWarnings.isEmpty, "the pipeline passes the warning on for the log")
        #expect(throws: ImagingError.self, "a fatal error still refuses") {
            _ = try JPEG.decode([0xFF, 0xD8, 0xFF, 0xDB, 0, 3, 9])
        }
    }

    @Test("should turn a CMYK JPEG into the right colour instead of 'Unsupported color conversion request'")
    func cmyk() throws {
        // Inverted CMYK (what Adobe writes): no cyan, full magenta and yellow, no black ink: red.
        let red = HostileJPEGs.cmyk(width: 32, height: 16, inverted: (c: 255, m: 0, y: 0, k: 255))
        #expect(!red.isEmpty)
        let image = try JPEG.decode(red)
        let pixel = image.rgb(x: 10, y: 8)
        #expect(pixel.red > 230 && pixel.green < 30 && pixel.blue < 30, "\(pixel)")
        let output = try PhotoPipeline().process(jpeg: red)
        #expect(try JPEG.decode(output.photo).rgb(x: 5, y: 5).red > 200)
    }
}
