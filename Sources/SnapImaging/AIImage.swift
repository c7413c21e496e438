import SnapCore

/// The copy of a photo sent to the AI service, sized by how the model looks at it: the main cost of an
/// analysis is the image, so nothing larger than the model uses is sent.
public enum AIImage {
    /// How much of the photo the model examines (OpenAI's `detail`).
    public typealias Detail = ImageDetail

    /// The size the model will actually use for a `width` × `height` photo.
    public static func size(width: Int, height: Int, detail: Detail) -> (width: Int, height: Int) {
        func fit(_ w: Double, _ h: Double, within box: Double) -> (Double, Double) {
            let scale = min(1, box / max(w, h))
            return (w * scale, h * scale)
        }
        // Sizes are truncated, as the service truncates: rounding 1024.7 up to 1025 would add a column of
        // 512-px tiles (6 instead of 4 for a 4:3 photo at high detail).
        switch detail {
        case .low:
            let (w, h) = fit(Double(width), Double(height), within: 512)
            return (max(1, Int(w)), max(1, Int(h)))
        case .high:
            var (w, h) = fit(Double(width), Double(height), within: 2048)
            let scale = min(1, 768 / min(w, h))
            w *= scale
            h *= scale
            return (max(1, Int(w)), max(1, Int(h)))
        }
    }

    /// What a model bills for an image, in tokens: a base per image and one amount per 512-px tile.
    public struct TokenRates: Sendable, Hashable {
        public var base: Int
        public var perTile: Int

        public init(base: Int, perTile: Int) {
            self.base = base
            self.perTile = perTile
        }

        /// OpenAI's published rates: gpt-4o-mini bills images at 2833 + 5667 a tile (at its lower price per
        /// token), gpt-4o and the other tiling models at 85 + 170. Unknown models (a local server) are
        /// counted by the gpt-4o rule.
        public static func forModel(_ model: String) -> TokenRates {
            model.hasPrefix("gpt-4o-mini") ? TokenRates(base: 2833, perTile: 5667) : TokenRates(base: 85, perTile: 170)
        }
    }

    /// Image tokens billed for a `width` × `height` image by OpenAI's tiling rule: the base alone for low
    /// detail; for high detail, the base plus one tile per 512-pixel square of the high-detail size.
    public static func tokens(
        width: Int, height: Int, detail: Detail, rates: TokenRates = TokenRates(base: 85, perTile: 170)
    ) -> Int {
        guard detail == .high else { return rates.base }
        let (w, h) = size(width: width, height: height, detail: .high)
        let tiles = ((w + 511) / 512) * ((h + 511) / 512)
        return rates.base + rates.perTile * tiles
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
