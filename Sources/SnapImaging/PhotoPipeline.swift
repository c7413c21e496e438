/// What the station does to every capture before anything leaves it: orient, resize, re-encode without
/// metadata, and make a thumbnail for the display.
public struct PhotoPipeline: Sendable {
    public var orientation: Orientation
    public var maxSide: Int
    public var quality: Int
    public var thumbnailSide: Int

    public init(orientation: Orientation = .upright, maxSide: Int = 2048, quality: Int = 80, thumbnailSide: Int = 320) {
        self.orientation = orientation
        self.maxSide = maxSide
        self.quality = quality
        self.thumbnailSide = thumbnailSide
    }

    /// The processed photo and its thumbnail, both as JPEG bytes.
    public struct Output: Sendable {
        public var photo: [UInt8]
        public var thumbnail: [UInt8]
        public var width: Int
        public var height: Int
    }

    /// Runs the pipeline on pixels from the camera.
    public func process(_ image: PixelImage) throws(ImagingError) -> Output {
        let photo = image.oriented(orientation).downscaled(toFit: maxSide)
        let thumbnail = photo.downscaled(toFit: thumbnailSide)
        return Output(
            photo: try JPEG.encode(photo, quality: quality), thumbnail: try JPEG.encode(thumbnail, quality: 85),
            width: photo.width, height: photo.height)
    }

    /// Runs the pipeline on a JPEG file's bytes, decoding no larger than the output needs.
    public func process(jpeg: [UInt8]) throws(ImagingError) -> Output {
        try process(JPEG.decode(jpeg, minimumLongestSide: maxSide))
    }
}
