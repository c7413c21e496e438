/// The copy of a photo sent to the AI service, sized by how the model looks at it: the main cost of an
/// analysis is the image, so nothing larger than the model uses is sent.
public enum AIImage {
    /// How much of the photo the model examines (OpenAI's `detail`).
    public enum Detail: String, Sendable, Hashable, CaseIterable {
        /// The model sees a 512 × 512 version: a fixed, small cost.
        case low
        /// The model fits the image in 2048 × 2048, then scales its shortest side to 768 and reads it in
        /// 512-pixel tiles.
        case high
    }

    /// The size the model will actually use for a `width` × `height` photo.
    public static func size(width: Int, height: Int, detail: Detail) -> (width: Int, height: Int) {
        func fit(_ w: Double, _ h: Double, within box: Double) -> (Double, Double) {
            let scale = min(1, box / max(w, h))
            return (w * scale, h * scale)
        }
        switch detail {
        case .low:
            let (w, h) = fit(Double(width), Double(height), within: 512)
            return (max(1, Int(w.rounded())), max(1, Int(h.rounded())))
        case .high:
            var (w, h) = fit(Double(width), Double(height), within: 2048)
            let scale = min(1, 768 / min(w, h))
            w *= scale
            h *= scale
            return (max(1, Int(w.rounded())), max(1, Int(h.rounded())))
        }
    }

    /// Image tokens the model is billed for, by OpenAI's published rule for GPT-4o-class models:
    /// 85 for low detail; 85 + 170 per 512-pixel tile of the high-detail size.
    public static func tokens(width: Int, height: Int, detail: Detail) -> Int {
        guard detail == .high else { return 85 }
        let (w, h) = size(width: width, height: height, detail: .high)
        let tiles = ((w + 511) / 512) * ((h + 511) / 512)
        return 85 + 170 * tiles
    }

    /// The JPEG for the AI service, decoded no larger than needed from the stored photo.
    public static func jpeg(from photo: [UInt8], detail: Detail, quality: Int = 80) throws(ImagingError) -> [UInt8] {
        let (width, height) = try JPEG.size(of: photo)
        let target = size(width: width, height: height, detail: detail)
        let decoded = try JPEG.decode(photo, minimumLongestSide: max(target.width, target.height))
        let image =
            decoded.width == target.width && decoded.height == target.height
            ? decoded : decoded.scaled(to: target.width, target.height)
        return try JPEG.encode(image, quality: quality)
    }
}
