internal import CTurboJPEG
internal import CYUV

/// A photo as JPEG stores it: YUV 4:2:0, a full-size luma plane and two half-size chroma planes.
///
/// 1.5 bytes a pixel instead of BGRX's 4, and no colour conversion between decoding and encoding: a
/// photo that needs no turn, filter or sticker goes through the pipeline in this form.
public struct YUVImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// `lumaStride × lumaRows` bytes: the image padded to even dimensions, as TurboJPEG's plane format
    /// requires for 4:2:0 (it reads and writes the padding), the padding repeating the edge.
    public var luma: [UInt8]
    /// `chromaWidth × chromaHeight` bytes each.
    public var blue: [UInt8]
    public var red: [UInt8]

    public var lumaStride: Int { (width + 1) & ~1 }
    public var lumaRows: Int { (height + 1) & ~1 }
    public var chromaWidth: Int { lumaStride / 2 }
    public var chromaHeight: Int { lumaRows / 2 }

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let stride = (width + 1) & ~1
        let rows = (height + 1) & ~1
        luma = [UInt8](repeating: 0, count: stride * rows)
        blue = [UInt8](repeating: 128, count: (stride / 2) * (rows / 2))
        red = blue
    }

    /// Planes of the right sizes whose bytes are not set: for a decoder or a scaler that writes every
    /// one of them, padding included. Three separate buffers, so that writing one copies none (`red =
    /// blue` above shares one until the first write), and no time goes on filling 7 MB that is about to
    /// be overwritten.
    init(unsetWidth width: Int, height: Int) {
        self.width = width
        self.height = height
        let (stride, rows) = ((width + 1) & ~1, (height + 1) & ~1)
        func unset(_ count: Int) -> [UInt8] { [UInt8](unsafeUninitializedCapacity: count) { $1 = count } }
        luma = unset(stride * rows)
        blue = unset((stride / 2) * (rows / 2))
        red = unset((stride / 2) * (rows / 2))
    }

    /// Scaled to exactly `newWidth` × `newHeight`, each plane by an area average: libyuv's planar box
    /// filter (`I420Scale`) where it shrinks by more than 2, `AreaScale` from 1 to 2, where libyuv's box
    /// filter would fall back to bilinear; libyuv's bilinear to enlarge.
    public func scaled(to newWidth: Int, _ newHeight: Int) -> YUVImage {
        scaled(to: newWidth, newHeight, chromaHalfBack: (false, false))
    }

    /// Whether `scaled` shrinks to that size with `AreaScale`, which can also move the chroma grid.
    func areaScales(to newWidth: Int, _ newHeight: Int) -> Bool {
        Self.areaScales(from: (width, height), to: (newWidth, newHeight))
    }

    /// The same for planes of any size.
    static func areaScales(from size: (Int, Int), to newSize: (Int, Int)) -> Bool {
        func chroma(_ size: (Int, Int)) -> (Int, Int) { ((size.0 + 1) / 2, (size.1 + 1) / 2) }
        return AreaScale.applies(from: size, to: newSize) && AreaScale.applies(from: chroma(size), to: chroma(newSize))
    }

    /// `scaled`, with the chroma planes' grid moved half a sample back across and/or down where
    /// `AreaScale` does the shrink (`areaScales`): for a turn that will reverse an odd side.
    func scaled(to newWidth: Int, _ newHeight: Int, chromaHalfBack: (across: Bool, down: Bool)) -> YUVImage {
        // AreaScale and I420Scale write every byte of the planes, and padLumaEdges the padding.
        var output = YUVImage(unsetWidth: newWidth, height: newHeight)
        if areaScales(to: newWidth, newHeight) {
            func shrink(
                _ plane: [UInt8], _ size: (Int, Int, stride: Int), into out: inout [UInt8], _ to: (Int, Int, Int),
                halfBack: (across: Bool, down: Bool) = (false, false)
            ) {
                plane.withUnsafeBufferPointer { source in
                    out.withUnsafeMutableBufferPointer { target in
                        AreaScale.scale(
                            source.baseAddress!, width: size.0, height: size.1, stride: size.stride,
                            into: target.baseAddress!, width: to.0, height: to.1, stride: to.2, halfBack: halfBack)
                    }
                }
            }
            let chroma = (chromaWidth, chromaHeight, stride: chromaWidth)
            let outChroma = (output.chromaWidth, output.chromaHeight, output.chromaWidth)
            shrink(
                luma, (width, height, stride: lumaStride), into: &output.luma, (newWidth, newHeight, output.lumaStride))
            shrink(blue, chroma, into: &output.blue, outChroma, halfBack: chromaHalfBack)
            shrink(red, chroma, into: &output.red, outChroma, halfBack: chromaHalfBack)
            output.padLumaEdges()
            return output
        }
        precondition(chromaHalfBack == (false, false), "only AreaScale moves the chroma grid")
        let (stride, chroma, outStride, outChroma) = (lumaStride, chromaWidth, output.lumaStride, output.chromaWidth)
        luma.withUnsafeBufferPointer { y in
            blue.withUnsafeBufferPointer { u in
                red.withUnsafeBufferPointer { v in
                    output.luma.withUnsafeMutableBufferPointer { oy in
                        output.blue.withUnsafeMutableBufferPointer { ou in
                            output.red.withUnsafeMutableBufferPointer { ov in
                                _ = I420Scale(
                                    y.baseAddress, Int32(stride), u.baseAddress, Int32(chroma), v.baseAddress,
                                    Int32(chroma), Int32(width), Int32(height), oy.baseAddress, Int32(outStride),
                                    ou.baseAddress, Int32(outChroma), ov.baseAddress, Int32(outChroma), Int32(newWidth),
                                    Int32(newHeight), kFilterBox)
                            }
                        }
                    }
                }
            }
        }
        output.padLumaEdges()
        return output
    }

    /// Copies the last column and row of the image into the padding column and row, if there are any.
    mutating func padLumaEdges() {
        let stride = lumaStride
        if stride > width {
            for row in 0..<height { luma[row * stride + width] = luma[row * stride + width - 1] }
        }
        if lumaRows > height {
            let last = (height - 1) * stride
            luma.replaceSubrange(height * stride..<(height + 1) * stride, with: luma[last..<last + stride])
        }
    }

    /// Downscaled to fit `maxSide`, keeping the aspect ratio; unchanged when already small enough.
    public func downscaled(toFit maxSide: Int) -> YUVImage {
        let size = PixelImage.fittingSize(width: width, height: height, maxSide: maxSide)
        guard size != (width, height) else { return self }
        return scaled(to: size.width, size.height)
    }
}

extension JPEG {
    /// The chroma subsampling a JPEG's header announces (`TJSAMP_*`).
    static func subsampling(of data: UnsafeBufferPointer<UInt8>) throws(ImagingError) -> Int32 {
        let handle = try TurboJPEGHandle(decompress: true)
        return try handle.header(data).subsampling
    }

    /// Whether the JPEG is YUV 4:2:0, which `decodeYUV` needs; most cameras and phones write it.
    public static func isYUV420(_ data: [UInt8]) -> Bool {
        data.withUnsafeBufferPointer { isYUV420($0) }
    }

    public static func isYUV420(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        (try? subsampling(of: data)) == Int32(TJSAMP_420.rawValue)
    }

    /// Decodes a 4:2:0 JPEG into its YUV planes, DCT-scaled like `decode`; wraps `tjDecompressToYUVPlanes`.
    public static func decodeYUV(_ data: [UInt8], minimumLongestSide: Int = .max, warnings: JPEGWarnings? = nil)
        throws(ImagingError) -> YUVImage
    {
        try data.withUnsafeBufferPointer { data throws(ImagingError) in
            try decodeYUV(data, minimumLongestSide: minimumLongestSide, warnings: warnings)
        }
    }

    /// The same for a JPEG's bytes in place (a mapped file).
    public static func decodeYUV(
        _ data: UnsafeBufferPointer<UInt8>, minimumLongestSide: Int = .max, warnings: JPEGWarnings? = nil
    ) throws(ImagingError) -> YUVImage {
        let handle = try TurboJPEGHandle(decompress: true)
        let header = try handle.header(data)
        try checkStructure(data, width: header.width, height: header.height)
        guard header.subsampling == Int32(TJSAMP_420.rawValue) else {
            throw .jpeg(call: "tjDecompressToYUVPlanes", message: "not YUV 4:2:0")
        }
        let scaled = try scaledSize(width: header.width, height: header.height, minimumLongestSide: minimumLongestSide)
        // TurboJPEG writes every byte of the planes, padding included, even for a truncated file.
        var image = YUVImage(unsetWidth: scaled.width, height: scaled.height)
        var strides: [Int32] = [Int32(image.lumaStride), Int32(image.chromaWidth), Int32(image.chromaWidth)]
        let status = image.luma.withUnsafeMutableBufferPointer { y in
            image.blue.withUnsafeMutableBufferPointer { u in
                image.red.withUnsafeMutableBufferPointer { v in
                    var planes: [UnsafeMutablePointer<UInt8>?] = [y.baseAddress, u.baseAddress, v.baseAddress]
                    return tjDecompressToYUVPlanes(
                        handle.raw, data.baseAddress, UInt(data.count), &planes, Int32(scaled.width), &strides,
                        Int32(scaled.height),
                        TJFLAG_ACCURATEDCT)
                }
            }
        }
        try handle.check(status, "tjDecompressToYUVPlanes", warnings: warnings)
        image.padLumaEdges()
        return image
    }

    /// Encodes YUV planes as a JPEG at `quality`, with no metadata; wraps `tjCompressFromYUVPlanes`.
    public static func encode(_ image: YUVImage, quality: Int) throws(ImagingError) -> [UInt8] {
        let handle = try TurboJPEGHandle(decompress: false)
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(buffer) }
        var strides: [Int32] = [Int32(image.lumaStride), Int32(image.chromaWidth), Int32(image.chromaWidth)]
        let status = image.luma.withUnsafeBufferPointer { y in
            image.blue.withUnsafeBufferPointer { u in
                image.red.withUnsafeBufferPointer { v in
                    var planes: [UnsafePointer<UInt8>?] = [y.baseAddress, u.baseAddress, v.baseAddress]
                    return tjCompressFromYUVPlanes(
                        handle.raw, &planes, Int32(image.width), &strides, Int32(image.height),
                        Int32(TJSAMP_420.rawValue),
                        &buffer, &size, Int32(min(100, max(1, quality))), TJFLAG_ACCURATEDCT)
                }
            }
        }
        guard status == 0, let buffer else { throw handle.error("tjCompressFromYUVPlanes") }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
