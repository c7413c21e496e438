import SnapImaging
import Testing

@Suite("Shrinking YUV planes by 1 to 2 (the exact-size photo)")
struct AreaScaleTests {
    /// The area average with fractional edges, in floating point: the oracle.
    func oracle(
        _ plane: [UInt8], width: Int, height: Int, stride: Int, to newWidth: Int, _ newHeight: Int,
        rows chosen: [Int]? = nil
    ) -> [Double] {
        let (sx, sy) = (Double(width) / Double(newWidth), Double(height) / Double(newHeight))
        func weights(_ out: Int, _ scale: Double, _ size: Int) -> [(Int, Double)] {
            let (from, to) = (Double(out) * scale, Double(out + 1) * scale)
            return (Int(from)...min(size - 1, Int(to.rounded(.up)))).compactMap { index in
                let covered = min(to, Double(index + 1)) - max(from, Double(index))
                return covered > 0 ? (index, covered / scale) : nil
            }
        }
        var out = [Double](repeating: 0, count: newWidth * newHeight)
        for y in chosen ?? Array(0..<newHeight) {
            let rows = weights(y, sy, height)
            for x in 0..<newWidth {
                var sum = 0.0
                for (column, wx) in weights(x, sx, width) {
                    for (row, wy) in rows { sum += wx * wy * Double(plane[row * stride + column]) }
                }
                out[y * newWidth + x] = sum
            }
        }
        return out
    }

    func noise(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test("should match a floating-point area average within one level, on noise, at 1.24:1 and odd sizes")
    func matchesOracle() {
        var image = YUVImage(width: 507, height: 381)
        image.luma = noise(image.luma.count, seed: 3)
        image.blue = noise(image.blue.count, seed: 5)
        let scaled = image.scaled(to: 409, 307)
        let luma = oracle(image.luma, width: 507, height: 381, stride: image.lumaStride, to: 409, 307)
        var worst = 0.0
        for y in 0..<307 {
            for x in 0..<409 {
                worst = max(worst, abs(Double(scaled.luma[y * scaled.lumaStride + x]) - luma[y * 409 + x]))
            }
        }
        #expect(worst <= 1, "largest difference \(worst) levels")
        let blue = oracle(
            image.blue, width: image.chromaWidth, height: image.chromaHeight, stride: image.chromaWidth,
            to: scaled.chromaWidth, scaled.chromaHeight)
        let chromaWorst = zip(scaled.blue, blue).map { abs(Double($0) - $1) }.max() ?? 99
        #expect(chromaWorst <= 1, "chroma: largest difference \(chromaWorst) levels")
    }

    @Test("should give the same rows where a large plane is cut into bands for several threads")
    func bands() {
        var image = YUVImage(width: 1000, height: 900)
        image.luma = noise(image.luma.count, seed: 11)
        let scaled = image.scaled(to: 700, 600)
        // Up to four bands of 150 rows: the rows at and around each cut, and the first and last.
        let rows = [0, 1, 149, 150, 151, 299, 300, 301, 449, 450, 451, 598, 599]
        let luma = oracle(image.luma, width: 1000, height: 900, stride: image.lumaStride, to: 700, 600, rows: rows)
        var worst = 0.0
        for y in rows {
            for x in 0..<700 {
                worst = max(worst, abs(Double(scaled.luma[y * scaled.lumaStride + x]) - luma[y * 700 + x]))
            }
        }
        #expect(worst <= 1, "largest difference \(worst) levels")
    }

    @Test("should keep a flat plane flat, to its last row and column")
    func flat() {
        var image = YUVImage(width: 300, height: 200)
        image.luma = [UInt8](repeating: 77, count: image.luma.count)
        let scaled = image.scaled(to: 201, 151)
        #expect(Set(scaled.luma) == [77] && Set(scaled.blue) == [128])
    }
}
