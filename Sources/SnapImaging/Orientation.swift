/// Quarter turns clockwise followed by mirror flips: how a camera is mounted, or what EXIF says.
public struct Orientation: Sendable, Hashable {
    public var quarterTurns: Int
    public var mirrored: Bool
    public var flipped: Bool

    public init(quarterTurns: Int = 0, mirrored: Bool = false, flipped: Bool = false) {
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.mirrored = mirrored
        self.flipped = flipped
    }

    public static let upright = Orientation()

    public var isUpright: Bool { quarterTurns == 0 && !mirrored && !flipped }
}

extension PixelImage {
    /// The image turned and flipped by `orientation`.
    public func oriented(_ orientation: Orientation) -> PixelImage {
        guard !orientation.isUpright else { return self }
        let turns = orientation.quarterTurns
        let outWidth = turns % 2 == 0 ? width : height
        let outHeight = turns % 2 == 0 ? height : width
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                let from = source.bindMemory(to: UInt32.self)
                let to = target.bindMemory(to: UInt32.self)
                for y in 0..<outHeight {
                    let sy = orientation.flipped ? outHeight - 1 - y : y
                    for x in 0..<outWidth {
                        let sx = orientation.mirrored ? outWidth - 1 - x : x
                        // (sx, sy) in the turned image comes from (ix, iy) in the source.
                        let (ix, iy): (Int, Int) =
                            switch turns {
                            case 1: (sy, height - 1 - sx)
                            case 2: (width - 1 - sx, height - 1 - sy)
                            case 3: (width - 1 - sy, sx)
                            default: (sx, sy)
                            }
                        to[y * outWidth + x] = from[iy * width + ix]
                    }
                }
            }
        }
        return PixelImage(width: outWidth, height: outHeight, pixels: output)
    }
}
