import SnapImaging
import SnapTestSupport
import Testing

@Suite("EXIF orientation")
struct OrientationTests {
    static let all = Array(1...8)
    let upright = TestImages.marked(width: 96, height: 64)

    /// The stored pixels that orientation `value` turns into `upright`: found by trying all eight.
    private func stored(for value: Int) throws -> PixelImage {
        let correction = try #require(Orientation(exifValue: value))
        let candidates = (1...8).compactMap(Orientation.init(exifValue:)).map { upright.oriented($0) }
        return try #require(candidates.first { $0.oriented(correction) == upright })
    }

    @Test("should turn a photo upright by its EXIF orientation before dropping the metadata", arguments: all)
    func upright(value: Int) throws {
        let file = EXIFWriter.inserting(orientation: value, into: try JPEG.encode(stored(for: value), quality: 95))
        #expect(EXIF.orientationTag(in: file) == value)
        let output = try PhotoPipeline(maxSide: 2048).process(jpeg: file)
        let result = try JPEG.decode(output.photo)
        #expect(result.width == 96 && result.height == 64)
        #expect(TestImages.psnr(result, upright) > 28, "orientation \(value)")
        #expect(result.rgb(x: 4, y: 4).red > 200, "the mark is top-left for orientation \(value)")
    }

    @Test("should let no EXIF, GPS, XMP, IPTC or comment segment through")
    func metadataStripped() throws {
        let file = EXIFWriter.inserting(orientation: 6, gps: true, into: try JPEG.encode(upright, quality: 90))
        #expect(EXIFWriter.markers(of: file).contains(0xE1))
        let output = try PhotoPipeline().process(jpeg: file)
        for jpeg in [output.photo, output.thumbnail] {
            let markers = EXIFWriter.markers(of: jpeg)
            #expect(!markers.contains { (0xE1...0xEF).contains($0) || $0 == 0xFE }, "markers \(markers)")
            #expect(jpeg.firstRange(of: Array("Exif".utf8)) == nil)
            #expect(jpeg.firstRange(of: Array("GPS".utf8)) == nil)
        }
    }

    @Test("should read hostile EXIF as upright without crashing")
    func hostileEXIF() throws {
        let jpeg = try JPEG.encode(upright, quality: 80)
        var truncated = EXIFWriter.inserting(orientation: 6, into: jpeg)
        truncated[4] = 0xFF  // segment length (0xFF..) beyond the end of the file
        var badOffset = EXIFWriter.inserting(orientation: 6, into: jpeg)
        badOffset[2 + 4 + 6 + 4] = 0xF0  // IFD offset far outside the segment
        var badValue = EXIFWriter.inserting(orientation: 6, into: jpeg)
        badValue[2 + 4 + 6 + 8 + 2 + 8] = 9  // orientation 9 does not exist
        for file in [truncated, badOffset, badValue, [0xFF, 0xD8, 0xFF, 0xE1, 0x00], Array(jpeg.prefix(3))] {
            #expect(EXIF.orientation(of: file) == .upright)
        }
    }
}

extension Array where Element == UInt8 {
    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where Array(self[start..<start + needle.count]) == needle {
            return start..<start + needle.count
        }
        return nil
    }
}
