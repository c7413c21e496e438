import SnapCore

/// Whether a photo is good enough to spend an AI analysis (or the day's one share) on.
public struct QualityGate: Sendable, Hashable {
    /// Mean luminance (0…1) below which the photo is too dark.
    public var minBrightness: Double
    /// Variance of the Laplacian (on 0…255 luma, measured at 512 px) below which it is too blurred.
    public var minSharpness: Double

    public init(minBrightness: Double, minSharpness: Double) {
        self.minBrightness = minBrightness
        self.minSharpness = minSharpness
    }

    /// What the gate measured, and its verdict.
    public struct Measurement: Sendable, Hashable {
        public var brightness: Double
        public var sharpness: Double
    }

    /// Mean luminance and the variance of the 4-neighbour Laplacian, on the photo scaled to 512 px so the
    /// figure does not depend on the camera's resolution.
    public static func measure(_ image: PixelImage) -> Measurement {
        let small = image.downscaled(toFit: 512)
        var luma = [UInt8](repeating: 0, count: small.width * small.height)
        small.pixels.withUnsafeBufferPointer { pixels in
            for index in luma.indices {
                let weighted =
                    29 * Int(pixels[index * 4]) + 150 * Int(pixels[index * 4 + 1]) + 77 * Int(pixels[index * 4 + 2])
                luma[index] = UInt8(weighted >> 8)
            }
        }
        return measure(luma: luma, width: small.width, height: small.height)
    }

    /// The same measurement from a YUV photo's luma plane, scaled to 512 px with libyuv's box filter.
    public static func measure(_ image: YUVImage) -> Measurement {
        let small = image.downscaled(toFit: 512)
        let stride = small.lumaStride
        let rows = (0..<small.height).flatMap { small.luma[$0 * stride..<$0 * stride + small.width] }
        return measure(luma: rows, width: small.width, height: small.height)
    }

    static func measure(luma: [UInt8], width: Int, height: Int) -> Measurement {
        var sum = 0
        for value in luma { sum += Int(value) }
        var laplacianSum = 0.0
        var laplacianSquares = 0.0
        var count = 0.0
        if width > 2 && height > 2 {
            for y in 1..<(height - 1) {
                for x in 1..<(width - 1) {
                    let i = y * width + x
                    let value = Double(
                        Int(luma[i - 1]) + Int(luma[i + 1]) + Int(luma[i - width]) + Int(luma[i + width]) - 4
                            * Int(luma[i]))
                    laplacianSum += value
                    laplacianSquares += value * value
                    count += 1
                }
            }
        }
        let mean = count > 0 ? laplacianSum / count : 0
        let variance = count > 0 ? laplacianSquares / count - mean * mean : 0
        return Measurement(brightness: Double(sum) / Double(max(1, width * height)) / 255, sharpness: variance)
    }

    public func verdict(for measurement: Measurement) -> PhotoQuality {
        if measurement.brightness < minBrightness { return .tooDark }
        if measurement.sharpness < minSharpness { return .tooBlurred }
        return .good
    }
}
