/// The modes a V4L2 camera streams in: one for the preview, one for stills.
///
/// Chosen by `choose(from:preview:still:)`, a pure function of what the device lists, so the choice is
/// tested without a device.
public struct V4L2Plan: Sendable, Hashable {
    public var preview: V4L2Mode
    public var still: V4L2Mode

    public init(preview: V4L2Mode, still: V4L2Mode) {
        self.preview = preview
        self.still = still
    }

    /// The still is taken from the running preview stream: no mode switch at the countdown.
    public var stillFromPreview: Bool { preview == still }

    /// The formats the station takes, preview's preference first: raw formats need no decoding.
    public static let previewOrder: [FourCC] = [.yuyv, .nv12, .yuv420, .mjpeg, .jpeg]
    /// Stills prefer MJPEG: a webcam's largest sizes come compressed (USB 2 cannot carry them raw at speed).
    public static let stillOrder: [FourCC] = [.mjpeg, .jpeg, .yuyv, .nv12, .yuv420]

    /// Chooses the preview and still modes from `formats`.
    ///
    /// * Preview: the size nearest the wanted one that is at least as large in both directions (else the
    ///   largest there is), in any usable format; a tie goes to a raw format.
    /// * Still: the largest size up to the wanted still's pixel count (else the smallest there is), MJPEG
    ///   first on a tie. When that is no larger than the preview, the still comes from the preview stream.
    ///
    /// Throws when the device offers no format the station can convert, naming what it does offer.
    public static func choose(
        from formats: [V4L2Format], preview: (width: Int, height: Int), still: (width: Int, height: Int)
    ) throws(DeviceError) -> V4L2Plan {
        let usable = formats.filter { previewOrder.contains($0.fourcc) }
        guard !usable.isEmpty else {
            let offered = formats.isEmpty ? "nothing" : formats.map(\.fourcc.description).joined(separator: ", ")
            throw DeviceError(
                .camera,
                "offers no format the station can use (it offers \(offered); usable: "
                    + previewOrder.map(\.description).joined(separator: ", ") + ")")
        }
        let wantedPreview = Size(preview.width, preview.height)
        let wantedStill = Size(still.width, still.height)
        let modes = usable.flatMap { format in
            candidates(format, near: [wantedPreview, wantedStill]).map {
                V4L2Mode(format.fourcc, width: $0.width, height: $0.height)
            }
        }
        let sizes = modes.map(\.size)
        func first(at size: Size, in order: [FourCC]) -> V4L2Mode? {
            modes.filter { $0.size == size }.min { rank($0.format, order) < rank($1.format, order) }
        }
        guard let previewSize = bestPreview(sizes, wanted: wantedPreview),
            let stillSize = bestStill(sizes, wanted: wantedStill),
            let previewMode = first(at: previewSize, in: previewOrder),
            let stillMode = first(at: stillSize, in: stillOrder)
        else {
            throw DeviceError(.camera, "lists formats but no frame size for any of them")
        }
        // A still no larger than the preview gains nothing from a mode switch.
        return V4L2Plan(preview: previewMode, still: stillMode.pixels <= previewMode.pixels ? previewMode : stillMode)
    }

    struct Size: Hashable {
        var width: Int
        var height: Int
        init(_ width: Int, _ height: Int) {
            self.width = width
            self.height = height
        }
        var pixels: Int { width * height }
        func covers(_ other: Size) -> Bool { width >= other.width && height >= other.height }
    }

    private static func rank(_ format: FourCC, _ order: [FourCC]) -> Int { order.firstIndex(of: format) ?? order.count }

    /// The sizes a format offers: each discrete size, and in a range, the sizes nearest the wanted ones
    /// and the largest. A format that lists no sizes (a driver without VIDIOC_ENUM_FRAMESIZES) is taken
    /// at the wanted sizes; setting the format then adjusts them.
    static func candidates(_ format: V4L2Format, near wanted: [Size]) -> [Size] {
        guard !format.sizes.isEmpty else { return wanted }
        return format.sizes.flatMap { size -> [Size] in
            switch size {
            case .discrete(let width, let height):
                return [Size(width, height)]
            case .stepwise(let widths, let widthStep, let heights, let heightStep):
                func fit(_ value: Int, _ range: ClosedRange<Int>, _ step: Int) -> Int {
                    let clamped = min(max(value, range.lowerBound), range.upperBound)
                    let steps = (clamped - range.lowerBound + step - 1) / step
                    return min(range.lowerBound + steps * step, range.upperBound)
                }
                return wanted.map { Size(fit($0.width, widths, widthStep), fit($0.height, heights, heightStep)) }
                    + [Size(widths.upperBound, heights.upperBound)]
            }
        }
    }

    /// The smallest size at least as large as `wanted`, else the largest.
    static func bestPreview(_ sizes: [Size], wanted: Size) -> Size? {
        let covering = sizes.filter { $0.covers(wanted) }
        return covering.isEmpty ? sizes.max { $0.pixels < $1.pixels } : covering.min { $0.pixels < $1.pixels }
    }

    /// The largest size with no more pixels than `wanted`, else the smallest.
    static func bestStill(_ sizes: [Size], wanted: Size) -> Size? {
        let within = sizes.filter { $0.pixels <= wanted.pixels }
        return within.isEmpty ? sizes.min { $0.pixels < $1.pixels } : within.max { $0.pixels < $1.pixels }
    }
}

extension V4L2Mode {
    var pixels: Int { width * height }
    var size: V4L2Plan.Size { V4L2Plan.Size(width, height) }

    /// The format as `CameraPixels` names it: V4L2's plain JPEG is decoded as MJPEG.
    var pixelFormat: FourCC { format == .jpeg ? .mjpeg : format }
}

extension FourCC {
    /// V4L2_PIX_FMT_JPEG: what some webcams call their MJPEG.
    public static let jpeg = FourCC("JPEG")
}
