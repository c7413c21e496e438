import Foundation
import SnapImaging

/// Images with known content for tests.
public enum TestImages {
    /// `marked` as a JPEG file's bytes.
    public static func jpeg(width: Int = 64, height: Int = 48) -> [UInt8] {
        (try? JPEG.encode(marked(width: width, height: height), quality: 90)) ?? []
    }

    /// A gradient with a red block in the top-left quarter, so turns and flips are visible.
    public static func marked(width: Int = 64, height: Int = 48) -> PixelImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 4
                let marked = x < width / 4 && y < height / 4
                pixels[index] = marked ? 0 : UInt8(x * 255 / max(1, width - 1))
                pixels[index + 1] = marked ? 0 : UInt8(y * 255 / max(1, height - 1))
                pixels[index + 2] = marked ? 255 : 64
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    /// Peak signal-to-noise ratio in dB between two images of one size, over the colour channels.
    public static func psnr(_ a: PixelImage, _ b: PixelImage) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var squared = 0.0
        var count = 0.0
        for index in stride(from: 0, to: a.pixels.count, by: 4) {
            for channel in 0..<3 {
                let difference = Double(a.pixels[index + channel]) - Double(b.pixels[index + channel])
                squared += difference * difference
                count += 1
            }
        }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (squared / count))
    }
}

extension TestImages {
    /// Deterministic noise over a mid-grey, like a detailed, well-lit photo.
    public static func noise(width: Int, height: Int, seed: UInt32 = 7) -> PixelImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var state = seed
        for index in stride(from: 0, to: pixels.count, by: 4) {
            for channel in 0..<3 {
                state = state &* 1_664_525 &+ 1_013_904_223
                pixels[index + channel] = UInt8(64 + Int(state >> 24) / 2)
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }
}
