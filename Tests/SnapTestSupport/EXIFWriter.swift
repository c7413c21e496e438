/// Builds EXIF segments for tests: an orientation in IFD0 and a GPS IFD with a latitude, the metadata a
/// phone photo carries and the station must never pass on.
public enum EXIFWriter {
    /// `jpeg` with an APP1 EXIF segment inserted after SOI (little-endian TIFF).
    public static func inserting(orientation: Int, gps: Bool = true, into jpeg: [UInt8]) -> [UInt8] {
        var tiff: [UInt8] = Array("II".utf8) + le16(42) + le32(8)
        let entries = gps ? 2 : 1
        let ifdSize = 2 + entries * 12 + 4
        tiff += le16(entries)
        let orientationEntry: [[UInt8]] = [le16(0x0112), le16(3), le32(1), le16(orientation), le16(0)]
        tiff += orientationEntry.joined()
        if gps { tiff += le16(0x8825) + le16(4) + le32(1) + le32(8 + ifdSize) }
        tiff += le32(0)
        if gps {
            // GPS IFD: GPSLatitudeRef "N".
            // (Pieces joined, not one chain of `+`: Swift 6.2's type checker gives up on the chain.)
            let pieces: [[UInt8]] = [le16(1), le16(0x0001), le16(2), le32(2), Array("N\0".utf8), [0, 0], le32(0)]
            tiff += pieces.joined()
        }
        let body = Array("Exif\0\0".utf8) + tiff
        let segment: [UInt8] = [0xFF, 0xE1] + be16(body.count + 2) + body
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
    private static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// The JPEG marker bytes before the image data, in order.
    public static func markers(of jpeg: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var index = 2
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
            markers.append(jpeg[index + 1])
            if jpeg[index + 1] == 0xDA { break }
            index += 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
        }
        return markers
    }
}
