internal import CYUV

/// Turning YUV 4:2:0 planes, and the one thing that makes it more than moving bytes.
///
/// 4:2:0 pairs luma columns 0–1, 2–3, … under one chroma sample; the last column of an odd width is alone
/// (with the padding). A turn that reverses that side pairs the columns the other way round, lone one
/// first, so every chroma sample would sit half a sample off the luma it belongs to: colour fringes along
/// every edge (3 to 5 dB lost on a photo of coloured shapes). The chroma must be taken half a sample
/// further on. Where `AreaScale` shrinks, that is free and exact (its chroma taps are moved); elsewhere
/// `oriented` interpolates it after the turn, and the pipeline sends such a photo through BGRX instead
/// (`PhotoPipeline.yuvSize`).
extension YUVImage {
    /// Scaled to `size` (before the turn) and turned by `orientation`: the turn moves the small image's
    /// bytes, and where `AreaScale` shrinks, it averages the chroma on the grid the turn needs.
    public func scaled(to size: (width: Int, height: Int), turnedBy orientation: Orientation) -> YUVImage {
        let resizes = size != (width, height)
        guard !orientation.isUpright else { return resizes ? scaled(to: size.width, size.height) : self }
        guard resizes, areaScales(to: size.width, size.height) else {
            return (resizes ? scaled(to: size.width, size.height) : self).oriented(orientation)
        }
        let odd = orientation.reversesOddSides(width: size.width, height: size.height)
        return scaled(to: size.width, size.height, chromaHalfBack: (odd.x, odd.y)).rotated(orientation)
    }

    /// The image turned and flipped by `orientation`, the chroma of a reversed odd side interpolated
    /// onto the turned luma.
    public func oriented(_ orientation: Orientation) -> YUVImage {
        guard !orientation.isUpright else { return self }
        var turned = rotated(orientation)
        let odd = orientation.reversesOddSides(width: width, height: height)
        let (across, down) = orientation.swapsSides ? (odd.y, odd.x) : (odd.x, odd.y)
        if across { turned.takeChromaHalfASampleOn(across: true) }
        if down { turned.takeChromaHalfASampleOn(across: false) }
        return turned
    }

    /// The planes turned as they are, each in one pass of libyuv's `RotatePlane` (the quarter turns move
    /// 8×8 blocks through SIMD registers; a mirror reverses rows in them).
    func rotated(_ orientation: Orientation) -> YUVImage {
        let (upsideDown, mode) = orientation.libyuvRotation
        let swaps = orientation.swapsSides
        // RotatePlane writes every byte of the planes; padLumaEdges the luma's padding.
        var output = YUVImage(unsetWidth: swaps ? height : width, height: swaps ? width : height)
        func rotate(_ plane: [UInt8], _ size: (Int, Int, stride: Int), into out: inout [UInt8], stride: Int) {
            plane.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { target in
                    _ = RotatePlane(
                        source.baseAddress, Int32(size.stride), target.baseAddress, Int32(stride), Int32(size.0),
                        Int32(upsideDown ? -size.1 : size.1), mode)
                }
            }
        }
        // The luma's padding is left behind and made anew for the new sides.
        rotate(luma, (width, height, stride: lumaStride), into: &output.luma, stride: output.lumaStride)
        let chroma = (chromaWidth, chromaHeight, stride: chromaWidth)
        rotate(blue, chroma, into: &output.blue, stride: output.chromaWidth)
        rotate(red, chroma, into: &output.red, stride: output.chromaWidth)
        output.padLumaEdges()
        return output
    }

    private mutating func takeChromaHalfASampleOn(across: Bool) {
        let (columns, rows) = (chromaWidth, chromaHeight)
        blue = blue.halfASampleOn(columns: columns, rows: rows, across: across)
        red = red.halfASampleOn(columns: columns, rows: rows, across: across)
    }
}

extension [UInt8] {
    /// A `columns` × `rows` plane sampled half a sample further on, across or down: each sample cubic-
    /// interpolated from its neighbours, (−1, 9, 9, −1) / 16, the edge repeated. Their plain mean blurs
    /// edges more (0.5 to 1 dB below this on the coloured shapes).
    fileprivate func halfASampleOn(columns: Int, rows: Int, across: Bool) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            withUnsafeBufferPointer { plane in
                for y in 0..<rows {
                    for x in 0..<columns {
                        func at(_ offset: Int) -> Int {
                            across
                                ? Int(plane[y * columns + Swift.min(columns - 1, Swift.max(0, x + offset))])
                                : Int(plane[Swift.min(rows - 1, Swift.max(0, y + offset)) * columns + x])
                        }
                        out[y * columns + x] = UInt8(clamping: (9 * (at(0) + at(1)) - at(-1) - at(2) + 8) >> 4)
                    }
                }
            }
            initialized = count
        }
    }
}

extension Orientation {
    /// Which sides of a `width` × `height` image (before the turn) the turn reverses and are odd: those
    /// whose chroma must move half a sample.
    func reversesOddSides(width: Int, height: Int) -> (x: Bool, y: Bool) {
        let reversed = reversedSides
        return (reversed.x && width % 2 == 1, reversed.y && height % 2 == 1)
    }
}
