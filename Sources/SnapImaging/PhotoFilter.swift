internal import CYUV
import SnapCore

/// The photo filters (the cases live in SnapCore, where the config reads them).
///
/// Every filter runs on libyuv's SIMD row functions (SSSE3/AVX2 on x86, NEON on the Pi): colour filters
/// are one `ARGBColorMatrix` pass with the intensity folded into the matrix; the vignette multiplies by a
/// small radial mask scaled up; the sharpen is an unsharp mask from `ARGBBlur`.
extension PhotoFilter {
    /// The photo with the filter applied at `intensity` (clamped to 0…1).
    public func apply(to image: PixelImage, intensity: Double) -> PixelImage {
        let amount = min(1, max(0, intensity))
        guard amount > 0 else { return image }
        switch self {
        case .sepia:
            return image.colorMatrix(
                Self.blend([[0.131, 0.534, 0.272], [0.168, 0.686, 0.349], [0.189, 0.769, 0.393]], amount))
        case .mono:
            return image.colorMatrix(
                Self.blend([[0.114, 0.587, 0.299], [0.114, 0.587, 0.299], [0.114, 0.587, 0.299]], amount))
        case .vivid:
            // Saturation 1.6 around Rec. 601 luma.
            let s = 1.6
            let luma = [0.114, 0.587, 0.299]
            let rows = (0..<3).map { row in (0..<3).map { column in (1 - s) * luma[column] + (row == column ? s : 0) } }
            return image.colorMatrix(Self.blend(rows, amount))
        case .vignette:
            return image.vignetted(strength: amount)
        case .sharpen:
            return image.sharpened(amount: amount)
        }
    }

    /// `identity + amount × (matrix − identity)`, rows producing B, G, R from (B, G, R).
    static func blend(_ matrix: [[Double]], _ amount: Double) -> [[Double]] {
        (0..<3).map { row in
            (0..<3).map { column in (row == column ? 1 : 0) * (1 - amount) + matrix[row][column] * amount }
        }
    }
}

extension PixelImage {
    /// Each pixel's (B, G, R) times a 3×3 matrix; wraps `ARGBColorMatrix` (coefficients in 1/64, ±2).
    func colorMatrix(_ rows: [[Double]]) -> PixelImage {
        var coefficients = [Int8](repeating: 0, count: 16)
        for row in 0..<3 {
            for column in 0..<3 {
                coefficients[row * 4 + column] = Int8(max(-128, min(127, (rows[row][column] * 64).rounded())))
            }
        }
        coefficients[15] = 64  // alpha stays
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                _ = ARGBColorMatrix(
                    source.baseAddress, Int32(bytesPerRow), target.baseAddress, Int32(bytesPerRow), coefficients,
                    Int32(width), Int32(height))
            }
        }
        return PixelImage(width: width, height: height, pixels: output)
    }

    /// Darkens towards the corners: multiplies by a radial mask computed at 1/16 size and scaled up.
    func vignetted(strength: Double) -> PixelImage {
        let maskWidth = max(2, width / 16)
        let maskHeight = max(2, height / 16)
        var mask = [UInt8](repeating: 255, count: maskWidth * maskHeight * 4)
        for y in 0..<maskHeight {
            for x in 0..<maskWidth {
                let dx = (Double(x) + 0.5) / Double(maskWidth) * 2 - 1
                let dy = (Double(y) + 0.5) / Double(maskHeight) * 2 - 1
                let falloff = max(0, (dx * dx + dy * dy) / 2 - 0.1) / 0.9  // 0 in the middle, 1 in the corners
                let shade = UInt8(255 * (1 - 0.75 * strength * falloff * falloff.squareRoot()))
                let index = (y * maskWidth + x) * 4
                mask[index] = shade
                mask[index + 1] = shade
                mask[index + 2] = shade
            }
        }
        let full = PixelImage(width: maskWidth, height: maskHeight, pixels: mask).scaled(to: width, height)
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            full.pixels.withUnsafeBufferPointer { shade in
                output.withUnsafeMutableBufferPointer { target in
                    _ = ARGBMultiply(
                        source.baseAddress, Int32(bytesPerRow), shade.baseAddress, Int32(bytesPerRow),
                        target.baseAddress,
                        Int32(bytesPerRow), Int32(width), Int32(height))
                }
            }
        }
        return PixelImage(width: width, height: height, pixels: output)
    }

    /// Unsharp mask: original + amount × (original − blurred), the blur radius scaled to the image.
    func sharpened(amount: Double) -> PixelImage {
        let radius = max(1, min(5, max(width, height) / 700))
        let blurred = blurred(radius: radius)
        // libyuv's arithmetic saturates at 0 and 255, so the signed detail d = original − blur is kept as
        // its two halves: out = original + amount × d⁺ − amount × d⁻.
        var plus = [UInt8](repeating: 0, count: pixels.count)
        var minus = [UInt8](repeating: 0, count: pixels.count)
        var output = [UInt8](repeating: 0, count: pixels.count)
        let stride = Int32(bytesPerRow)
        let shade = UInt32(min(255, amount * 255)) * 0x0001_0101 | 0xFF00_0000
        pixels.withUnsafeBufferPointer { source in
            blurred.pixels.withUnsafeBufferPointer { blur in
                plus.withUnsafeMutableBufferPointer { plus in
                    minus.withUnsafeMutableBufferPointer { minus in
                        output.withUnsafeMutableBufferPointer { target in
                            let w = Int32(width)
                            let h = Int32(height)
                            _ = ARGBSubtract(
                                source.baseAddress, stride, blur.baseAddress, stride, plus.baseAddress, stride, w, h)
                            _ = ARGBSubtract(
                                blur.baseAddress, stride, source.baseAddress, stride, minus.baseAddress, stride, w, h)
                            _ = ARGBShade(plus.baseAddress, stride, plus.baseAddress, stride, w, h, shade)
                            _ = ARGBShade(minus.baseAddress, stride, minus.baseAddress, stride, w, h, shade)
                            _ = ARGBAdd(
                                source.baseAddress, stride, plus.baseAddress, stride, target.baseAddress, stride, w, h)
                            _ = ARGBSubtract(
                                target.baseAddress, stride, minus.baseAddress, stride, target.baseAddress, stride, w, h)
                        }
                    }
                }
            }
        }
        return PixelImage(width: width, height: height, pixels: output)
    }

    /// A box blur; wraps `ARGBBlur`, whose sum table is a ring of `2 × radius + 2` rows.
    public func blurred(radius: Int) -> PixelImage {
        let radius = max(1, min(radius, height, width / 2 - 1))
        var sums = [Int32](repeating: 0, count: width * 4 * (2 * radius + 2))
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                sums.withUnsafeMutableBufferPointer { table in
                    _ = ARGBBlur(
                        source.baseAddress, Int32(bytesPerRow), target.baseAddress, Int32(bytesPerRow),
                        table.baseAddress,
                        Int32(width * 4), Int32(width), Int32(height), Int32(radius))
                }
            }
        }
        return PixelImage(width: width, height: height, pixels: output)
    }
}
