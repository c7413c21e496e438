/// Cuts the food out of a photo by comparing it with a frame of the station's empty scene, and gives it
/// a white outline, like a sticker.
///
/// The work happens on a 384-pixel copy: difference with the reference, a threshold, an opening to drop
/// specks and a closing to join the plate's parts, the largest region with its holes filled, then a
/// feathered alpha and the outline, scaled back to the photo's size.
public struct StickerMaker: Sendable {
    /// The outline's width in pixels of the output.
    public var outline: Int
    /// The smallest channel difference that counts as "changed" (0…255).
    public var threshold: Int

    /// The sticker's longest side: it is shown on the result screen and sent in chats, never printed.
    public static let maxSide = 1024

    public init(outline: Int = 12, threshold: Int = 40) {
        self.outline = outline
        self.threshold = threshold
    }

    /// Why no sticker could be made; the station then uses the plain photo.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case noReference
        case nothingFound
        public var description: String {
            switch self {
            case .noReference: "no reference frame of the empty scene yet"
            case .nothingFound: "nothing in the photo differs enough from the empty scene"
            }
        }
    }

    /// The sticker: the photo's pixels inside the cut-out, white in the outline, transparent elsewhere
    /// (fourth byte = straight alpha), cropped to the outline's bounds, at most `maxSide` pixels.
    public func make(photo: PixelImage, reference: PixelImage?) throws(Failure) -> PixelImage {
        guard let reference else { throw .noReference }
        let photo = photo.downscaled(toFit: Self.maxSide)
        let small = photo.downscaled(toFit: 384)
        let scene = reference.scaled(to: small.width, small.height)
        var changed = [UInt8](repeating: 0, count: small.width * small.height)
        for index in changed.indices {
            var difference = 0
            for channel in 0..<3 {
                difference = max(
                    difference, abs(Int(small.pixels[index * 4 + channel]) - Int(scene.pixels[index * 4 + channel])))
            }
            changed[index] = difference >= threshold ? 255 : 0
        }
        let scale = Double(photo.width) / Double(small.width)
        let cleaned = Mask(width: small.width, height: small.height, values: changed)
            .morphed(radius: 1, dilate: false).morphed(radius: 1, dilate: true)  // opening: specks go
            .morphed(radius: 3, dilate: true).morphed(radius: 3, dilate: false)  // closing: gaps join
        let (region, area) = cleaned.largestRegion()
        guard area >= changed.count / 100 else { throw .nothingFound }
        let ring = max(1, Int((Double(outline) / scale).rounded()))
        let outlined = region.morphed(radius: ring, dilate: true)

        // Scaling the hard masks up bilinearly feathers their edges over about one small pixel.
        let alpha = region.image.scaled(to: photo.width, photo.height)
        let outer = outlined.image.scaled(to: photo.width, photo.height)
        var pixels = [UInt8](repeating: 0, count: photo.pixels.count)
        var bounds = (minX: photo.width, minY: photo.height, maxX: -1, maxY: -1)
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let index = (y * photo.width + x) * 4
                // Bilinear scaling turns a solid 255 into 253 or 254: inside the cut-out is fully opaque.
                let inside = alpha.pixels[index] >= 252 ? 255 : UInt16(alpha.pixels[index])
                let coverage = outer.pixels[index] >= 252 ? 255 : outer.pixels[index]
                guard coverage > 0 else { continue }
                for channel in 0..<3 {
                    // Photo where the cut-out is, white in the outline, blended across the feathered edge.
                    pixels[index + channel] = UInt8(
                        (UInt16(photo.pixels[index + channel]) * inside + 255 * (255 - inside)) / 255)
                }
                pixels[index + 3] = coverage
                bounds = (min(bounds.minX, x), min(bounds.minY, y), max(bounds.maxX, x), max(bounds.maxY, y))
            }
        }
        return PixelImage(width: photo.width, height: photo.height, pixels: pixels)
            .cropped(
                x: bounds.minX, y: bounds.minY, width: bounds.maxX - bounds.minX + 1,
                height: bounds.maxY - bounds.minY + 1)
    }
}

extension StickerMaker {
    /// The round sticker that stands in where the cut-out finds nothing: the middle of the photo cut to
    /// a disc with a white rim, transparent outside, `side` pixels across (straight alpha, as `make`).
    public static func round(photo: PixelImage, side: Int = 512) -> PixelImage {
        let square = min(photo.width, photo.height)
        let middle = photo.cropped(
            x: (photo.width - square) / 2, y: (photo.height - square) / 2, width: square, height: square)
        let image = middle.scaled(to: min(side, square), min(side, square))
        let size = image.width
        let radius = Double(size) / 2
        let rim = max(2, radius * 0.12)
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                let dx = Double(x) + 0.5 - radius
                let dy = Double(y) + 0.5 - radius
                let distance = (dx * dx + dy * dy).squareRoot()
                // One pixel of feather at the edge of the disc and at the rim's inner edge.
                let coverage = min(1, max(0, radius - distance))
                guard coverage > 0 else { continue }
                let photoShare = min(1, max(0, radius - rim - distance))
                let index = (y * size + x) * 4
                for channel in 0..<3 {
                    pixels[index + channel] = UInt8(
                        (Double(image.pixels[index + channel]) * photoShare + 255 * (1 - photoShare)).rounded())
                }
                pixels[index + 3] = UInt8((coverage * 255).rounded())
            }
        }
        return PixelImage(width: size, height: size, pixels: pixels)
    }
}

extension PixelImage {
    /// The rectangle `x, y, width, height` of the image.
    public func cropped(x: Int, y: Int, width newWidth: Int, height newHeight: Int) -> PixelImage {
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        for row in 0..<newHeight {
            let from = ((y + row) * width + x) * 4
            output.replaceSubrange(
                row * newWidth * 4..<(row + 1) * newWidth * 4, with: pixels[from..<from + newWidth * 4])
        }
        return PixelImage(width: newWidth, height: newHeight, pixels: output)
    }
}
