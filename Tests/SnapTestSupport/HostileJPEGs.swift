internal import CTurboJPEG
import Foundation
import SnapImaging

/// JPEG files crafted the way the station was attacked when probed, for the tests and the fuzzing corpus.
public enum HostileJPEGs {
    /// A progressive-marked JPEG with `count` scans: a real file's scan repeated, which a decoder would walk
    /// `count` times over the whole image (10,000 took 71 s and 250 MB before the station counted them).
    public static func manyScans(_ count: Int, width: Int = 256, height: Int = 256) -> [UInt8] {
        var jpeg = TestImages.jpeg(width: width, height: height)
        // Baseline (SOF0) becomes progressive (SOF2), and the one scan is repeated.
        if let sof = marker(0xC0, in: jpeg) { jpeg[sof + 1] = 0xC2 }
        guard let sos = marker(0xDA, in: jpeg), jpeg.count >= 2, jpeg.suffix(2) == [0xFF, 0xD9] else { return jpeg }
        let scan = Array(jpeg[sos..<(jpeg.count - 2)])
        var crafted = Array(jpeg[..<sos])
        crafted.reserveCapacity(crafted.count + scan.count * count + 2)
        for _ in 0..<count { crafted += scan }
        return crafted + [0xFF, 0xD9]
    }

    /// `jpeg` cut after `fraction` of its bytes: the end of the data is missing.
    public static func truncated(_ jpeg: [UInt8], keeping fraction: Double) -> [UInt8] {
        Array(jpeg.prefix(Int(Double(jpeg.count) * fraction)))
    }

    /// A CMYK JPEG, as print software writes them, of one colour given as inverted CMYK (255 = no ink):
    /// what libjpeg hands back for Adobe's files. Encoded through `tjCompress2` with `TJPF_CMYK`.
    public static func cmyk(width: Int, height: Int, inverted: (c: UInt8, m: UInt8, y: UInt8, k: UInt8)) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            (pixels[index], pixels[index + 1], pixels[index + 2], pixels[index + 3]) =
                (inverted.c, inverted.m, inverted.y, inverted.k)
        }
        guard let handle = tjInitCompress() else { return [] }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(buffer) }
        let status = tjCompress2(
            handle, pixels, Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_CMYK.rawValue), &buffer, &size,
            Int32(TJSAMP_444.rawValue), 95, 0)
        guard status == 0, let buffer else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// The index of the first marker `code` (the 0xFF before it) in the header segments.
    static func marker(_ code: UInt8, in jpeg: [UInt8]) -> Int? {
        var index = 2
        while index + 3 < jpeg.count, jpeg[index] == 0xFF {
            if jpeg[index + 1] == code { return index }
            index += 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
        }
        return nil
    }
}
