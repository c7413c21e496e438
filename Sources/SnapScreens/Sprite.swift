internal import CPangoCairo
import Foundation
import SnapImaging

/// A picture with alpha, ready to paint: one cairo ARGB32 surface at the size it is shown, made once and
/// painted many times (the jar's stickers, each frame). Also gives the convex outline of its opaque
/// part, for the physics. Owns the surface and frees it in `deinit`.
public final class Sprite: @unchecked Sendable {
    public let width: Int
    public let height: Int
    let surface: OpaquePointer

    /// The sticker PNG at `path`, scaled so that its longest side is `side` pixels; nil when unreadable.
    public convenience init?(png path: String, side: Int) {
        let image = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(image) }
        guard let image, cairo_surface_status(image) == CAIRO_STATUS_SUCCESS else { return nil }
        self.init(scaling: image, side: side, round: false)
    }

    /// A round cut of the middle of `image` (a photo without a cut-out), with a white rim like a
    /// sticker's outline, `side` pixels across.
    public convenience init(round image: PixelImage, side: Int) {
        let source = image.pixels.withUnsafeBufferPointer { pixels in
            // Copied at once into a surface cairo owns, so lending the buffer for the call is safe.
            let lent = cairo_image_surface_create_for_data(
                UnsafeMutablePointer(mutating: pixels.baseAddress!), CAIRO_FORMAT_RGB24, Int32(image.width),
                Int32(image.height), Int32(image.bytesPerRow))
            defer { cairo_surface_destroy(lent) }
            let copy = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(image.width), Int32(image.height))!
            let context = cairo_create(copy)
            cairo_set_source_surface(context, lent, 0, 0)
            cairo_paint(context)
            cairo_destroy(context)
            return copy
        }
        defer { cairo_surface_destroy(source) }
        self.init(scaling: source, side: side, round: true)
    }

    private init(scaling source: OpaquePointer, side: Int, round: Bool) {
        let sourceWidth = Double(cairo_image_surface_get_width(source))
        let sourceHeight = Double(cairo_image_surface_get_height(source))
        let side = max(8, side)
        if round {
            (width, height) = (side, side)
        } else {
            let scale = Double(side) / max(sourceWidth, sourceHeight, 1)
            (width, height) = (max(1, Int(sourceWidth * scale)), max(1, Int(sourceHeight * scale)))
        }
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        let context = cairo_create(surface)!
        defer { cairo_destroy(context) }
        if round {
            let rim = max(2, Double(side) * 0.06)
            let radius = Double(side) / 2
            cairo_arc(context, radius, radius, radius, 0, 2 * .pi)
            cairo_set_source_rgb(context, 1, 1, 1)
            cairo_fill(context)
            cairo_arc(context, radius, radius, radius - rim, 0, 2 * .pi)
            cairo_clip(context)
            let inner = Double(side) - 2 * rim
            let scale = inner / min(sourceWidth, sourceHeight)
            cairo_translate(context, radius - sourceWidth * scale / 2, radius - sourceHeight * scale / 2)
            cairo_scale(context, scale, scale)
        } else {
            cairo_scale(context, Double(width) / sourceWidth, Double(height) / sourceHeight)
        }
        cairo_set_source_surface(context, source, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
        cairo_paint(context)
        cairo_surface_flush(surface)
    }

    deinit { cairo_surface_destroy(surface) }

    /// The convex hull of the opaque pixels (alpha of at least half), as points around the sprite's
    /// centre, at most `maxPoints` of them (the ones that keep the most area).
    public func outline(maxPoints: Int = 12) -> [(x: Double, y: Double)] {
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return [] }
        var points: [(x: Double, y: Double)] = []
        // Each row's first and last opaque pixel: enough for the hull, and cheap.
        for y in 0..<height {
            let row = data + y * stride
            var first = -1
            var last = -1
            for x in 0..<width where row[x * 4 + 3] >= 128 {
                if first < 0 { first = x }
                last = x
            }
            if first >= 0 {
                points.append((Double(first), Double(y)))
                points.append((Double(last + 1), Double(y)))
                points.append((Double(first), Double(y + 1)))
                points.append((Double(last + 1), Double(y + 1)))
            }
        }
        let hull = ConvexHull.of(points)
        let simplified = ConvexHull.simplified(hull, to: maxPoints)
        let (cx, cy) = (Double(width) / 2, Double(height) / 2)
        return simplified.map { ($0.x - cx, $0.y - cy) }
    }
}

/// Convex hulls of point sets (Andrew's monotone chain), and their simplification.
public enum ConvexHull {
    /// The hull of `points`, counter-clockwise in a y-up frame (clockwise on a y-down screen).
    public static func of(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [(x: Double, y: Double)] = []
        for point in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], point) <= 0 {
                lower.removeLast()
            }
            lower.append(point)
        }
        var upper: [(x: Double, y: Double)] = []
        for point in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], point) <= 0 {
                upper.removeLast()
            }
            upper.append(point)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// `hull` with vertices dropped, the one whose loss costs the least area first, until `count` are left.
    public static func simplified(_ hull: [(x: Double, y: Double)], to count: Int) -> [(x: Double, y: Double)] {
        var hull = hull
        while hull.count > max(3, count) {
            var cheapest = 0
            var least = Double.infinity
            for index in hull.indices {
                let a = hull[(index + hull.count - 1) % hull.count]
                let b = hull[index]
                let c = hull[(index + 1) % hull.count]
                let area = abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2
                if area < least { (least, cheapest) = (area, index) }
            }
            hull.remove(at: cheapest)
        }
        return hull
    }
}

extension Canvas {
    /// Paints `sprite` centred at `x, y`, turned by `angle` radians (clockwise), at `scale`.
    public func draw(_ sprite: Sprite, centerX x: Double, centerY y: Double, angle: Double, scale: Double = 1) {
        // At any angle the sprite stays within half its diagonal of its centre.
        let reach = (Double(sprite.width * sprite.width + sprite.height * sprite.height)).squareRoot() / 2 * scale + 1
        guard touches(Rect(x: x - reach, y: y - reach, width: 2 * reach, height: 2 * reach)) else { return }
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_translate(context, x, y)
        cairo_rotate(context, angle)
        cairo_scale(context, scale, scale)
        cairo_set_source_surface(context, sprite.surface, -Double(sprite.width) / 2, -Double(sprite.height) / 2)
        cairo_pattern_set_filter(
            cairo_get_source(context), angle == 0 && scale == 1 ? CAIRO_FILTER_FAST : CAIRO_FILTER_GOOD)
        cairo_paint(context)
    }

    /// A closed polygon, filled or stroked.
    public func polygon(
        _ points: [(Double, Double)], fill color: Color? = nil, stroke: Color? = nil, lineWidth: Double = 1
    ) {
        guard let first = points.first else { return }
        cairo_new_path(context)
        cairo_move_to(context, first.0, first.1)
        for point in points.dropFirst() { cairo_line_to(context, point.0, point.1) }
        cairo_close_path(context)
        if let color {
            cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
            if stroke != nil { cairo_fill_preserve(context) } else { cairo_fill(context) }
        }
        if let stroke {
            cairo_set_source_rgba(context, stroke.red, stroke.green, stroke.blue, stroke.alpha)
            cairo_set_line_width(context, lineWidth)
            cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke(context)
        }
    }
}
