internal import CYUV

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

    public var isUpright: Bool { normalized.quarterTurns == 0 && !normalized.mirrored }

    /// Whether the turn swaps width and height.
    public var swapsSides: Bool { quarterTurns % 2 == 1 }

    /// The same turn written without `flipped`: flipping upside down is a half turn and a mirror.
    var normalized: Orientation {
        flipped ? Orientation(quarterTurns: quarterTurns + 2, mirrored: !mirrored) : self
    }

    /// This turn followed by `next`, as one: a photo is turned once, however many reasons it has to turn
    /// (its EXIF orientation, then the camera's configured rotation and flips).
    ///
    /// With both normalized to a turn followed by at most a mirror, a mirror moved past a turn turns the
    /// other way: `M·R(t) = R(−t)·M`.
    public func then(_ next: Orientation) -> Orientation {
        let (first, second) = (normalized, next.normalized)
        let turns = first.quarterTurns + (first.mirrored ? -second.quarterTurns : second.quarterTurns)
        return Orientation(quarterTurns: turns, mirrored: first.mirrored != second.mirrored)
    }

    /// The turn as libyuv's rotations take it: the source read upside down (a negative height) or not,
    /// then a clockwise rotation. A turn followed by a mirror is the source upside down and the opposite
    /// turn plus a half: `M·R(t) = R(2 − t)·V`.
    var libyuvRotation: (upsideDown: Bool, mode: RotationMode) {
        let turn = normalized
        let quarters = turn.mirrored ? (6 - turn.quarterTurns) % 4 : turn.quarterTurns
        let modes: [RotationMode] = [kRotate0, kRotate90, kRotate180, kRotate270]
        return (turn.mirrored, modes[quarters])
    }

    /// Which of the source's sides the turn reverses: its columns (the last becomes the first across or
    /// down) and its rows. Read off the libyuv form: upside down reverses the rows, a clockwise quarter
    /// turn the rows, a half turn both, three quarters the columns.
    var reversedSides: (x: Bool, y: Bool) {
        let (upsideDown, mode) = libyuvRotation
        return (mode == kRotate180 || mode == kRotate270, upsideDown != (mode == kRotate90 || mode == kRotate180))
    }
}

extension PixelImage {
    /// The image turned and flipped by `orientation`, in one pass of libyuv's `ARGBRotate`.
    public func oriented(_ orientation: Orientation) -> PixelImage {
        guard !orientation.isUpright else { return self }
        let (upsideDown, mode) = orientation.libyuvRotation
        let (outWidth, outHeight) = orientation.swapsSides ? (height, width) : (width, height)
        // ARGBRotate writes every pixel.
        let count = pixels.count
        let output = [UInt8](unsafeUninitializedCapacity: count) { target, initialized in
            pixels.withUnsafeBufferPointer { source in
                _ = ARGBRotate(
                    source.baseAddress, Int32(bytesPerRow), target.baseAddress,
                    Int32(outWidth * Self.bytesPerPixel), Int32(width), Int32(upsideDown ? -height : height), mode)
            }
            initialized = count
        }
        return PixelImage(width: outWidth, height: outHeight, pixels: output)
    }
}
