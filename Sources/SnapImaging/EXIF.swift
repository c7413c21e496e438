/// Reads the one EXIF field the station uses, the orientation, from a JPEG's APP1 segment.
///
/// Everything else in EXIF (GPS, camera, time) is ignored here and never written out: the station
/// re-encodes every photo from pixels. The reader is bounds-checked at every step, because the bytes may
/// come from any file.
public enum EXIF {
    /// The orientation a JPEG asks for, as a turn and flips to apply; upright when absent or unreadable.
    public static func orientation(of jpeg: [UInt8]) -> Orientation {
        jpeg.withUnsafeBufferPointer { orientation(of: $0) }
    }

    /// The same for a JPEG's bytes in place (a mapped file).
    public static func orientation(of jpeg: UnsafeBufferPointer<UInt8>) -> Orientation {
        guard let value = orientationTag(in: jpeg) else { return .upright }
        return Orientation(exifValue: value) ?? .upright
    }

    /// The raw orientation value (1…8) from IFD0, if present.
    public static func orientationTag(in jpeg: [UInt8]) -> Int? {
        jpeg.withUnsafeBufferPointer { orientationTag(in: $0) }
    }

    static func orientationTag(in jpeg: UnsafeBufferPointer<UInt8>) -> Int? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
            let marker = jpeg[index + 1]
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            guard length >= 2, index + 2 + length <= jpeg.count else { return nil }
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data: no more metadata
            let body = index + 4
            if marker == 0xE1, length >= 8, jpeg[body..<body + 6].elementsEqual("Exif\0\0".utf8) {
                return tiffOrientation(jpeg[(body + 6)..<(index + 2 + length)])
            }
            index += 2 + length
        }
        return nil
    }

    private static func tiffOrientation(_ tiff: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        let base = tiff.startIndex
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true  // "II"
        case (0x4D, 0x4D): little = false  // "MM"
        default: return nil
        }
        func read(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= tiff.count else { return nil }
            var value = 0
            for byte in 0..<size {
                let shift = little ? byte * 8 : (size - 1 - byte) * 8
                value |= Int(tiff[base + offset + byte]) << shift
            }
            return value
        }
        guard read(2, 2) == 42, let ifd = read(4, 4), let count = read(ifd, 2) else { return nil }
        for entry in 0..<min(count, 512) {
            let at = ifd + 2 + entry * 12
            guard let tag = read(at, 2) else { return nil }
            if tag == 0x0112 {
                guard read(at + 2, 2) == 3, let value = read(at + 8, 2), (1...8).contains(value) else { return nil }
                return value
            }
        }
        return nil
    }
}

extension Orientation {
    /// The correction for an EXIF orientation value: 1 upright, 2 mirrored, 3 half turn, 4 flipped,
    /// 5 transposed, 6 quarter turn clockwise, 7 transversed, 8 three quarters.
    public init?(exifValue: Int) {
        switch exifValue {
        case 1: self = .upright
        case 2: self.init(mirrored: true)
        case 3: self.init(quarterTurns: 2)
        case 4: self.init(flipped: true)
        case 5: self.init(quarterTurns: 1, mirrored: true)
        case 6: self.init(quarterTurns: 1)
        case 7: self.init(quarterTurns: 1, flipped: true)
        case 8: self.init(quarterTurns: 3)
        default: return nil
        }
    }
}
