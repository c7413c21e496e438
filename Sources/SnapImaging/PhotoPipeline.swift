import Dispatch
import SnapCore

/// What the station does to every capture before anything leaves it: orient, resize, check the quality,
/// apply the filter, re-encode without metadata, and make a thumbnail and (by config) a sticker.
public struct PhotoPipeline: Sendable {
    public var orientation: Orientation
    public var maxSide: Int
    public var quality: Int
    public var thumbnailSide: Int
    public var filter: PhotoFilter?
    public var intensity: Double
    /// Nil turns the quality gate off: every photo counts as good.
    public var gate: QualityGate?
    /// Nil makes no sticker.
    public var sticker: StickerMaker?

    /// A DCT-scaled decode may land this much under `maxSide` (4056 px / 2 = 2028 for a 2048 maximum):
    /// the photo is then 1 % smaller than allowed, and decoding it costs a quarter of a full decode.
    /// 1 decodes at least `maxSide`, as vipsthumbnail does.
    public var dctTolerance = 0.98

    public init(
        orientation: Orientation = .upright, maxSide: Int = 2048, quality: Int = 80, thumbnailSide: Int = 320,
        filter: PhotoFilter? = nil, intensity: Double = 0, gate: QualityGate? = nil, sticker: StickerMaker? = nil
    ) {
        self.orientation = orientation
        self.maxSide = maxSide
        self.quality = quality
        self.thumbnailSide = thumbnailSide
        self.filter = filter
        self.intensity = intensity
        self.gate = gate
        self.sticker = sticker
    }

    /// The processed photo, its thumbnail and what the pipeline found.
    public struct Output: Sendable {
        public var photo: [UInt8]
        public var thumbnail: [UInt8]
        public var width: Int
        public var height: Int
        public var measurement: QualityGate.Measurement?
        public var verdict: PhotoQuality
        /// The sticker as PNG, when one was asked for and could be made.
        public var sticker: [UInt8]?
        /// Why the cut-out was not made (a round sticker then stands in).
        public var stickerProblem: String?
        /// What the JPEG decoder warned about (a truncated file decoded as far as it went).
        public var decodeWarnings: [String] = []
    }

    /// Runs the pipeline on pixels from the camera; `reference` is the empty scene, for the sticker.
    public func process(_ image: PixelImage, reference: PixelImage? = nil) throws(ImagingError) -> Output {
        try process(image, turn: orientation, reference: reference)
    }

    /// The BGRX pipeline, `turn` the whole turn the photo needs. The photo is shrunk before it is turned,
    /// so the turn moves the small image's pixels (the longest side, which `maxSide` bounds, is the same
    /// either way).
    private func process(_ image: PixelImage, turn: Orientation, reference: PixelImage?) throws(ImagingError)
        -> Output
    {
        var photo = image.downscaled(toFit: maxSide).oriented(turn)
        let measurement = gate.map { _ in QualityGate.measure(photo) }
        let verdict = gate.flatMap { gate in measurement.map(gate.verdict(for:)) } ?? .good
        if let filter { photo = filter.apply(to: photo, intensity: intensity) }
        let finished = photo
        let (encoded, thumbnail) = try Self.inParallel(
            { () throws(ImagingError) in try JPEG.encode(finished, quality: quality) },
            { [thumbnailSide] () throws(ImagingError) in
                try JPEG.encode(finished.downscaled(toFit: thumbnailSide), quality: 85)
            })
        var output = Output(
            photo: encoded, thumbnail: thumbnail, width: photo.width, height: photo.height, measurement: measurement,
            verdict: verdict)
        if let sticker {
            do {
                output.sticker = try PNG.encode(withAlpha: try sticker.make(photo: photo, reference: reference))
            } catch let failure as StickerMaker.Failure {
                // Every meal has a sticker: where nothing could be cut out, a round one stands in.
                output.stickerProblem = failure.description
                output.sticker = try PNG.encode(withAlpha: StickerMaker.round(photo: photo))
            } catch {
                output.stickerProblem = "\(error)"
            }
        }
        return output
    }

    /// Runs the pipeline on a JPEG file's bytes: decodes no larger than needed, and turns the photo as its
    /// EXIF orientation says, then as `orientation` says, before any metadata is dropped.
    ///
    /// A 4:2:0 JPEG that needs no filter or sticker stays in YUV from decode to encode: a quarter of the
    /// memory of the BGRX path's pixels and no colour conversion. Its turn, if any, is made last, on the
    /// shrunk planes: an orientation costs little more than upright. Everything else takes the BGRX path.
    public func process(jpeg: [UInt8], reference: PixelImage? = nil) throws(ImagingError) -> Output {
        try jpeg.withUnsafeBufferPointer { jpeg throws(ImagingError) in try process(jpeg: jpeg, reference: reference) }
    }

    /// The same for a JPEG's bytes in place: `snapstation process` maps the file rather than reading
    /// 8 MB into a buffer of its own.
    public func process(jpeg: UnsafeBufferPointer<UInt8>, reference: PixelImage? = nil) throws(ImagingError)
        -> Output
    {
        let least = Int((Double(maxSide) * dctTolerance).rounded(.up))
        let turn = EXIF.orientation(of: jpeg).then(orientation)
        let warnings = JPEGWarnings()
        guard filter == nil, sticker == nil, JPEG.isYUV420(jpeg), let size = try yuvSize(jpeg, least: least, turn: turn)
        else {
            let decoded = try JPEG.decode(jpeg, minimumLongestSide: least, warnings: warnings)
            var output = try process(decoded, turn: turn, reference: reference)
            output.decodeWarnings = warnings.messages
            return output
        }
        let decoded = try JPEG.decodeYUV(jpeg, minimumLongestSide: least, warnings: warnings)
        let photo = decoded.scaled(to: size, turnedBy: turn)
        let (encoded, (thumbnail, measurement)) = try Self.inParallel(
            { [quality] () throws(ImagingError) in try JPEG.encode(photo, quality: quality) },
            { [gate, thumbnailSide] () throws(ImagingError) in
                (
                    try JPEG.encode(photo.downscaled(toFit: thumbnailSide), quality: 85),
                    gate.map { _ in QualityGate.measure(photo) }
                )
            })
        var output = Output(
            photo: encoded, thumbnail: thumbnail, width: photo.width, height: photo.height, measurement: measurement,
            verdict: gate.flatMap { gate in measurement.map(gate.verdict(for:)) } ?? .good)
        output.decodeWarnings = warnings.messages
        return output
    }

    /// The photo's size before its turn, when the YUV path makes it as well as the BGRX path. Not so when
    /// the turn reverses an odd side, `AreaScale` does not shrink to it, and the decode is at most half
    /// size: the 4:2:0 chroma would be interpolated half a sample on (`YUVImage+Orientation`; 0.7 to
    /// 1.3 dB lost on sharp coloured edges), where the BGRX decode has it at full size and loses 0.15 dB.
    /// (Larger decodes upsample the chroma for BGRX too, and there the interpolation does better.) Such a
    /// photo is rare (a decode within `dctTolerance` of `maxSide` at an odd size) and costs a few ms more.
    private func yuvSize(_ jpeg: UnsafeBufferPointer<UInt8>, least: Int, turn: Orientation) throws(ImagingError)
        -> (width: Int, height: Int)?
    {
        let decoded = try JPEG.decodedSize(of: jpeg, minimumLongestSide: least)
        let size = PixelImage.fittingSize(width: decoded.width, height: decoded.height, maxSide: maxSide)
        let odd = turn.reversesOddSides(width: size.width, height: size.height)
        let shrinks =
            size != (decoded.width, decoded.height)
            && YUVImage.areaScales(from: (decoded.width, decoded.height), to: size)
        return (odd.x || odd.y) && !shrinks && decoded.fullChroma ? nil : size
    }

    /// Two pieces of the pipeline's end at once, on Dispatch's threads (the caller is the pipeline's own
    /// thread, never the cooperative pool): the photo's encoding takes most of the time, and the
    /// thumbnail and the quality measurement fit beside it on the second core.
    static func inParallel<First: Sendable, Second: Sendable>(
        _ first: @Sendable () throws(ImagingError) -> First, _ second: @Sendable () throws(ImagingError) -> Second
    ) throws(ImagingError) -> (First, Second) {
        let results = ParallelResults<First, Second>()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                results.first = Result { () throws(ImagingError) in try first() }
            } else {
                results.second = Result { () throws(ImagingError) in try second() }
            }
        }
        // Both ran to the end before concurrentPerform returned.
        return (try results.first!.get(), try results.second!.get())
    }
}

/// Where `inParallel`'s two threads leave their results: each writes only its own slot, and both are
/// read after `concurrentPerform` has returned.
private final class ParallelResults<First, Second>: @unchecked Sendable {
    var first: Result<First, ImagingError>?
    var second: Result<Second, ImagingError>?
}
