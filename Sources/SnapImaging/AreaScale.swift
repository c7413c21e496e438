import Dispatch
import Foundation

/// Shrinks an 8-bit plane by an area average: each output pixel is the mean of the input area it covers,
/// pixels cut by the area's edge weighted by the part inside.
///
/// libyuv's planar box filter is an area average only when it shrinks by more than 2 (below that it
/// falls back to bilinear, which skips input pixels and aliases). The exact-size photo is such a case: a
/// 4056-px photo decoded at 5/8 (2535 px) and shrunk to 2048 is 1.24:1. This fills the gap in fixed
/// point: the vertical pass (first, over whole rows, in 16-bit vector lanes) keeps 8 bits more than the
/// input for the horizontal one.
enum AreaScale {
    /// The horizontal pass's weights: 14-bit fractions, summed in 32 bits.
    static let weightBits: Int32 = 14
    /// The vertical pass's weights: 16-bit fractions, summed in 16-bit lanes (see `vertical`).
    static let verticalBits: Int32 = 16
    /// The intermediate rows keep 8 bits below the input's: 256 × the value.
    static let keptBits: Int32 = 8

    /// For each output position, `count` consecutive input positions from `start` and their weights. At
    /// the input's end the window is moved back inside, its weights with it (the extra ones are 0).
    struct Taps {
        var count: Int
        var start: [Int]
        var weight: [Int32]

        /// The weights of each output position sum to `1 << bits`. `halfBack` moves the output grid half
        /// an output sample towards the start (the first sample then averages only the half inside): a
        /// chroma plane that a turn will reverse along an odd side (`YUVImage.oriented`).
        init(from source: Int, to target: Int, bits: Int32 = AreaScale.weightBits, halfBack: Bool = false) {
            let scale = Double(source) / Double(target)
            let offset = halfBack ? -scale / 2 : 0
            count = min(source, Int(scale.rounded(.up)) + 1)
            start = [Int](repeating: 0, count: target)
            weight = [Int32](repeating: 0, count: target * count)
            let one = Int32(1) << bits
            for out in 0..<target {
                let from = max(0, Double(out) * scale + offset)
                let to = min(Double(source), Double(out) * scale + offset + scale)
                let first = min(Int(from), source - count)
                start[out] = first
                var given: Int32 = 0
                var heaviest = 0
                for tap in 0..<count {
                    let position = first + tap
                    let covered = max(0, min(to, Double(position + 1)) - max(from, Double(position)))
                    let w = Int32((covered / (to - from) * Double(one)).rounded())
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

    /// Shrinks `source` into `target`, the output grid moved half a sample back across and/or down as
    /// `halfBack` says (see `Taps`). Bands of output rows are independent, so they run on up to four
    /// threads (Dispatch's, not the cooperative pool's: the caller is the pipeline's own thread).
    static func scale(
        _ source: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
        into target: UnsafeMutablePointer<UInt8>, width newWidth: Int, height newHeight: Int, stride newStride: Int,
        halfBack: (across: Bool, down: Bool) = (false, false)
    ) {
        let down = Taps(from: height, to: newHeight, bits: verticalBits, halfBack: halfBack.down)
        let across = Taps(from: width, to: newWidth, halfBack: halfBack.across)
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

    /// How many output rows go through the intermediate buffer at a time: a few rows at the old width
    /// (16 × 2535 px × 2 bytes = 81 KB for the exact-size photo) stay in the core's cache between the two
    /// passes, where a whole band's worth (2 MB) went out to memory and back.
    static let chunkRows = 16

    /// Output rows `rows`, a chunk at a time: the vertical pass first (it runs over whole rows, which
    /// vectorizes, and leaves fewer rows for the horizontal one), then the horizontal pass.
    private static func scaleRows(
        _ rows: Range<Int>, _ source: UnsafePointer<UInt8>, width: Int, stride: Int,
        into target: UnsafeMutablePointer<UInt8>, width newWidth: Int, stride newStride: Int, down: Taps,
        across: Taps
    ) {
        // The new rows at the old width, with `keptBits` more precision; every element is written by the
        // vertical pass before the horizontal one reads it.
        let middle = UnsafeMutablePointer<UInt16>.allocate(capacity: width * chunkRows)
        defer { middle.deallocate() }
        for first in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: chunkRows) {
            let chunk = first..<min(rows.upperBound, first + chunkRows)
            for (row, y) in chunk.enumerated() {
                vertical(y, source, width: width, stride: stride, taps: down, into: middle + row * width)
            }
            for (row, y) in chunk.enumerated() {
                horizontal(middle + row * width, taps: across, into: target + y * newStride, width: newWidth)
            }
        }
    }

    /// One new row at the old width: the weighted sum of the input rows under it, `keptBits` more precise.
    ///
    /// The weights are 16-bit fractions (`verticalBits`), each split into its high and low byte so that
    /// every product fits 16 bits: `p × w / 256 = p × high + (p × low) / 256`. The loop then runs in
    /// 16-bit lanes (8 to a 128-bit vector, SSE2's `pmullw` or NEON's `mul`) where 32-bit sums took four
    /// and, on x86 without SSE4.1, an emulated multiply. Dropping the low products' fractions costs less
    /// than 3/256 of a level; the +1 takes back half of it on average.
    @inline(__always)
    private static func vertical(
        _ y: Int, _ source: UnsafePointer<UInt8>, width: Int, stride: Int, taps down: Taps,
        into out: UnsafeMutablePointer<UInt16>
    ) {
        let first = source + down.start[y] * stride
        down.weight.withUnsafeBufferPointer { all in
            let w = all.baseAddress! + y * down.count
            if down.count == 3 {
                // Always so for a shrink by 1 to 2 of a plane at least 3 pixels high.
                let (h0, h1, h2) = (UInt16(w[0] >> 8), UInt16(w[1] >> 8), UInt16(w[2] >> 8))
                let (f0, f1, f2) = (UInt16(w[0] & 255), UInt16(w[1] & 255), UInt16(w[2] & 255))
                let (l0, l1, l2) = (first, first + stride, first + 2 * stride)
                for x in 0..<width {
                    let (p0, p1, p2) = (UInt16(l0[x]), UInt16(l1[x]), UInt16(l2[x]))
                    let high = p0 &* h0 &+ p1 &* h1 &+ p2 &* h2
                    let low = (p0 &* f0) >> 8 &+ (p1 &* f1) >> 8 &+ (p2 &* f2) >> 8
                    out[x] = high &+ low &+ 1
                }
                return
            }
            // A plane under 3 pixels high: plain 32-bit sums.
            for x in 0..<width {
                var sum: Int32 = 1 << 7
                for tap in 0..<down.count { sum &+= w[tap] &* Int32(first[tap * stride + x]) }
                out[x] = UInt16(truncatingIfNeeded: sum >> 8)
            }
        }
    }

    /// One new row at the new width, rounded back to 8 bits.
    @inline(__always)
    private static func horizontal(
        _ line: UnsafePointer<UInt16>, taps across: Taps, into out: UnsafeMutablePointer<UInt8>, width newWidth: Int
    ) {
        let back = weightBits + keptBits
        let half = Int32(1) << (back - 1)
        let taps = across.count
        across.start.withUnsafeBufferPointer { start in
            across.weight.withUnsafeBufferPointer { weight in
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
