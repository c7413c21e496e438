import SnapCore
import SnapImaging
import SnapTestSupport
import Testing

@Suite("PhotoFilter")
struct FilterTests {
    let photo = TestImages.marked(width: 320, height: 240)

    /// An independent per-pixel colour matrix in Double: the oracle the SIMD path must match.
    private func oracle(_ image: PixelImage, _ rows: [[Double]]) -> PixelImage {
        var pixels = image.pixels
        for index in stride(from: 0, to: pixels.count, by: 4) {
            let bgr = (0..<3).map { Double(image.pixels[index + $0]) }
            for row in 0..<3 {
                let value = rows[row][0] * bgr[0] + rows[row][1] * bgr[1] + rows[row][2] * bgr[2]
                pixels[index + row] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return PixelImage(width: image.width, height: image.height, pixels: pixels)
    }

    @Test("should leave the photo as it is at intensity 0", arguments: PhotoFilter.allCases)
    func zero(filter: PhotoFilter) {
        #expect(filter.apply(to: photo, intensity: 0) == photo)
    }

    @Test("should match a plain colour-matrix computation for sepia, at full and half intensity")
    func sepia() {
        let sepia = [[0.131, 0.534, 0.272], [0.168, 0.686, 0.349], [0.189, 0.769, 0.393]]
        #expect(TestImages.psnr(PhotoFilter.sepia.apply(to: photo, intensity: 1), oracle(photo, sepia)) > 38)
        let half = (0..<3).map { r in (0..<3).map { c in 0.5 * sepia[r][c] + (r == c ? 0.5 : 0) } }
        #expect(TestImages.psnr(PhotoFilter.sepia.apply(to: photo, intensity: 0.5), oracle(photo, half)) > 38)
        let grey = PhotoFilter.sepia.apply(
            to: PixelImage(width: 4, height: 4, blue: 128, green: 128, red: 128), intensity: 1)
        let (r, g, b) = grey.rgb(x: 1, y: 1)
        #expect(r > g && g > b, "warm brown, not grey: \(r) \(g) \(b)")
    }

    @Test("should make every pixel grey with mono")
    func mono() {
        let grey = PhotoFilter.mono.apply(to: photo, intensity: 1)
        for (x, y) in [(5, 5), (100, 100), (300, 200)] {
            let (r, g, b) = grey.rgb(x: x, y: y)
            #expect(abs(Int(r) - Int(g)) <= 1 && abs(Int(g) - Int(b)) <= 1)
        }
    }

    @Test("should push colours apart with vivid")
    func vivid() {
        let muted = PixelImage(width: 4, height: 4, blue: 100, green: 120, red: 160)
        let (r, _, b) = PhotoFilter.vivid.apply(to: muted, intensity: 1).rgb(x: 0, y: 0)
        #expect(Int(r) - Int(b) > 60 + 20)
    }

    @Test("should darken the corners and keep the middle with vignette")
    func vignette() {
        let flat = PixelImage(width: 320, height: 240, blue: 200, green: 200, red: 200)
        let done = PhotoFilter.vignette.apply(to: flat, intensity: 1)
        #expect(done.rgb(x: 160, y: 120).red >= 195)
        #expect(done.rgb(x: 2, y: 2).red < 120)
        #expect(done.rgb(x: 2, y: 2).red < done.rgb(x: 60, y: 60).red)
    }

    @Test("should raise the Laplacian variance with sharpen")
    func sharpen() {
        let soft = TestImages.noise(width: 640, height: 480).blurred(radius: 3)
        let before = QualityGate.measure(soft).sharpness
        let after = QualityGate.measure(PhotoFilter.sharpen.apply(to: soft, intensity: 1)).sharpness
        #expect(after > before * 1.5, "\(before) → \(after)")
    }
}

@Suite("QualityGate")
struct QualityGateTests {
    let gate = QualityGate(minBrightness: 0.12, minSharpness: 30)

    @Test("should call a black photo too dark")
    func dark() {
        #expect(
            gate.verdict(for: QualityGate.measure(PixelImage(width: 64, height: 48, blue: 10, green: 10, red: 10)))
                == .tooDark)
    }

    @Test("should call a featureless or blurred photo too blurred, and a detailed one good")
    func blur() {
        let detailed = TestImages.noise(width: 640, height: 480)
        #expect(gate.verdict(for: QualityGate.measure(detailed)) == .good)
        #expect(
            gate.verdict(for: QualityGate.measure(PixelImage(width: 640, height: 480, blue: 128, green: 128, red: 128)))
                == .tooBlurred)
        let soft = detailed.blurred(radius: 5).blurred(radius: 5)
        #expect(QualityGate.measure(soft).sharpness < QualityGate.measure(detailed).sharpness / 4)
    }
}
