import Glibc

/// What a JPEG's markers say before a pixel is decoded: how many scans it has and whether it is
/// progressive. A progressive file may have any number of scans, and each one makes the decoder walk the
/// whole image again: 10,000 scans in 686 KB took 71 s and 250 MB to decode. Counting them first is a
/// walk over the marker segments, skipping the entropy-coded data, in one pass over the bytes.
public struct JPEGStructure: Sendable, Hashable {
    public var scans = 0
    public var progressive = false

    /// More scans than any camera, phone or encoder writes (libjpeg's progressive default has 10).
    public static let maxScans = 64

    public init(_ data: [UInt8]) {
        self = data.withUnsafeBufferPointer { Self($0) }
    }

    public init(_ data: UnsafeBufferPointer<UInt8>) {
        guard let base = data.baseAddress else { return }
        var index = 2  // after SOI
        let count = data.count
        while index + 1 < count {
            guard data[index] == 0xFF else {
                index += 1
                continue
            }
            let marker = data[index + 1]
            switch marker {
            case 0xFF:  // a fill byte before the marker
                index += 1
                continue
            case 0xD9:  // EOI
                return
            case 0x01, 0xD0...0xD7:  // TEM, RSTn: no length
                index += 2
                continue
            default:
                break
            }
            guard index + 3 < count else { return }
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            if [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) { progressive = true }
            index += 2 + length
            guard marker == 0xDA else { continue }  // SOS: the scan's entropy-coded data follows
            scans += 1
            // memchr finds the next 0xFF far faster than a byte loop; 0xFF00 (a stuffed byte) and RSTn are
            // part of the scan, anything else ends it.
            while index + 1 < count {
                guard let found = memchr(base + index, 0xFF, count - index) else { return }
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                guard index + 1 < count else { return }
                let next = data[index + 1]
                if next != 0x00, !(0xD0...0xD7).contains(next) { break }
                index += 2
            }
        }
    }
}
