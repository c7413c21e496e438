import Dispatch
import Foundation

/// Shrinks an 8-bit plane by an area average: each output pixel is the mean of the input area it covers,
/// pixels cut by the area's edge weighted by the part inside.
///
/// libyuv's planar box filter is an area average only when it shrinks by more than 2 (below that it
/// falls back to bilinear, which skips input pixels and aliases). The exact-size photo is such a case: a
/// 4056-px photo decoded at 5/8 (2535 px) and shrunk to 2048 is 1.24:1. This fills the gap; the weights
/// are 14-bit fixed point, and the vertical pass (first, over whole rows, which the compiler vectorizes)
/// keeps 8 bits more than the input for the horizontal one.
enum AreaScale {
    static let weightBits: Int32 = 14
    static let keptBits: Int32 = 8

    /// For each output position, `count` consecutive input positions from `start` and their weights. At
    /// the input's end the window is moved back inside, its weights with it (the extra ones are 0).
    struct Taps {
        var count: Int
        var start: [Int]
        var weight: [Int32]

        init(from source: Int, to target: Int) {
            let scale = Double(source) / Double(target)
            count = min(source, Int(scale.rounded(.up)) + 1)
            start = [Int](repeating: 0, count: target)
            weight = [Int32](repeating: 0, count: target * count)
            let one = Int32(1) << AreaScale.weightBits
            for out in 0..<target {
                let from = Double(out) * scale
                let to = from + scale
                let first = min(Int(from), source - count)
                start[out] = first
                var given: Int32 = 0
                var heaviest = 0
                for tap in 0..<count {
                    let position = first + tap
                    let covered = max(0, min(to, Double(position + 1)) - max(from, Double(position)))
                    let w = Int32((covered / scale * Double(one)).rounded())
                    weight[out * count + tap] = w
                    given += w
                    if w > weight[out * count + heaviest] { heaviest = tap }
                }
                // Rounding may leave the sum a unit off: the heaviest tap takes the difference.
                weight[out * count + heaviest] += one - given
            }
        }
    }

    /// Whether `AreaScale` should do a shrink from `source` to `target` rather than libyuv: a shrink by
    /// more than 1 and at most 2 on both axes.
    static func applies(from source: (Int, Int), to target: (Int, Int)) -> Bool {
        target.0 < source.0 && target.1 < source.1 && target.0 * 2 >= source.0 && target.1 * 2 >= source.1
    }

    /// Shrinks `source` into `target`. Bands of output rows are independent, so they run on up to four
    /// threads (Dispatch's, not the cooperative pool's: the caller is the pipeline's own thread).
    static func scale(
        _ source: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
        into target: UnsafeMutablePointer<UInt8>, width newWidth: Int, height newHeight: Int, stride newStride: Int
    ) {
        let down = Taps(from: height, to: newHeight)
        let across = Taps(from: width, to: newWidth)
        let bands = newWidth * newHeight >= 1 << 18 ? min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) : 1
        let rowsPerBand = (newHeight + bands - 1) / bands
        // The pointers cross into Dispatch's threads; each band writes only its own rows.
        let (input, output) = (UInt(bitPattern: source), UInt(bitPattern: target))
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let rows = (band * rowsPerBand)..<min(newHeight, (band + 1) * rowsPerBand)
            guard !rows.isEmpty else { return }
            scaleRows(
                rows, UnsafePointer(bitPattern: input)!, width: width, stride: stride,
                into: UnsafeMutablePointer(bitPattern: output)!, width: newWidth, stride: newStride, down: down,
                across: across)
        }
    }

    /// Output rows `rows`: the vertical pass first (it runs over whole rows, which vectorizes, and leaves
    /// fewer rows for the horizontal one), then the horizontal pass.
    private static func scaleRows(
        _ rows: Range<Int>, _ source: UnsafePointer<UInt8>, width: Int, stride: Int,
        into target: UnsafeMutablePointer<UInt8>, width newWidth: Int, stride newStride: Int, down: Taps,
        across: Taps
    ) {
        // The new rows at the old width, with `keptBits` more precision.
        var middle = [UInt16](repeating: 0, count: width * rows.count)
        var sums = [Int32](repeating: 0, count: width)
        let shift = weightBits - keptBits
        middle.withUnsafeMutableBufferPointer { middle in
            sums.withUnsafeMutableBufferPointer { sums in
                for (row, y) in rows.enumerated() {
                    for x in 0..<width { sums[x] = 1 << (shift - 1) }
                    for tap in 0..<down.count {
                        let w = down.weight[y * down.count + tap]
                        guard w != 0 else { continue }
                        let line = source + (down.start[y] + tap) * stride
                        for x in 0..<width { sums[x] &+= w &* Int32(line[x]) }
                    }
                    let out = middle.baseAddress! + row * width
                    for x in 0..<width { out[x] = UInt16(truncatingIfNeeded: sums[x] >> shift) }
                }
            }
        }
        // Each new row to the new width, rounded back to 8 bits.
        let back = weightBits + keptBits
        let half = Int32(1) << (back - 1)
        across.start.withUnsafeBufferPointer { start in
            across.weight.withUnsafeBufferPointer { weight in
                middle.withUnsafeBufferPointer { middle in
                    let taps = across.count
                    for (row, y) in rows.enumerated() {
                        let line = middle.baseAddress! + row * width
                        let out = target + y * newStride
                        if taps == 3 {
                            // The common case (a shrink by 1 to 2), unrolled.
                            for x in 0..<newWidth {
                                let p = line + start[x]
                                let w = weight.baseAddress! + 3 * x
                                let sum = w[0] &* Int32(p[0]) &+ w[1] &* Int32(p[1]) &+ w[2] &* Int32(p[2])
                                out[x] = UInt8(clamping: (sum &+ half) >> back)
                            }
                        } else {
                            for x in 0..<newWidth {
                                let p = line + start[x]
                                var sum = half
                                for tap in 0..<taps { sum &+= weight[x * taps + tap] &* Int32(p[tap]) }
                                out[x] = UInt8(clamping: sum >> back)
                            }
                        }
                    }
                }
            }
        }
    }
}
