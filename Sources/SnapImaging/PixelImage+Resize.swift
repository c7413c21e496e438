extension PixelImage {
    /// Downscaled to fit `maxSide` by area averaging (each output pixel is the mean of the source pixels it
    /// covers), which does not alias like sampling does. Images already small enough come back unchanged.
    public func downscaled(toFit maxSide: Int) -> PixelImage {
        let target = fittingSize(maxSide: maxSide)
        guard target.width < width || target.height < height else { return self }
        return downscaled(to: target.width, target.height)
    }

    /// Downscaled to exactly `newWidth` × `newHeight` by area averaging with fixed-point box weights.
    public func downscaled(to newWidth: Int, _ newHeight: Int) -> PixelImage {
        let xSpans = Self.spans(source: width, target: newWidth)
        let ySpans = Self.spans(source: height, target: newHeight)
        var output = [UInt8](repeating: 255, count: newWidth * newHeight * Self.bytesPerPixel)
        var rowSums = [UInt32](repeating: 0, count: newWidth * 3)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for (outY, ySpan) in ySpans.enumerated() {
                    for index in rowSums.indices { rowSums[index] = 0 }
                    for sy in ySpan {
                        let row = sy * width * 4
                        for (outX, xSpan) in xSpans.enumerated() {
                            var b: UInt32 = 0
                            var g: UInt32 = 0
                            var r: UInt32 = 0
                            for sx in xSpan {
                                let index = row + sx * 4
                                b += UInt32(source[index])
                                g += UInt32(source[index + 1])
                                r += UInt32(source[index + 2])
                            }
                            rowSums[outX * 3] += b
                            rowSums[outX * 3 + 1] += g
                            rowSums[outX * 3 + 2] += r
                        }
                    }
                    for (outX, xSpan) in xSpans.enumerated() {
                        let count = UInt32(xSpan.count * ySpan.count)
                        let index = (outY * newWidth + outX) * 4
                        for channel in 0..<3 {
                            target[index + channel] = UInt8((rowSums[outX * 3 + channel] + count / 2) / count)
                        }
                    }
                }
            }
        }
        return PixelImage(width: newWidth, height: newHeight, pixels: output)
    }

    /// For each target pixel, the range of source pixels it covers (at least one).
    private static func spans(source: Int, target: Int) -> [Range<Int>] {
        (0..<target).map { index in
            let start = index * source / target
            let end = max(start + 1, (index + 1) * source / target)
            return start..<end
        }
    }
}
