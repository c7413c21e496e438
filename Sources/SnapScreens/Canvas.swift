internal import CPangoCairo
import Foundation
import SnapImaging

/// A drawing surface: owns one cairo image surface (XRGB8888, the station's pixel format) and its context.
///
/// Text goes through pango, so it wraps and ellipsizes inside its box in any script. Wraps
/// `cairo_image_surface_create` and frees it in `deinit`.
public final class Canvas {
    public let width: Int
    public let height: Int
    let surface: OpaquePointer
    let context: OpaquePointer
    /// Texts that did not fit their box and were cut with an ellipsis, since the last `clear`.
    public private(set) var cutTexts: [String] = []
    /// Every text drawn since the last `clear`, in order: what a person reads on the frame, for the tests
    /// (and the headless display's `.words` files) to read without reading pixels.
    public private(set) var drawnTexts: [String] = []
    /// Texts with a character the font has no glyph for (drawn as a box), since the last `clear`.
    public private(set) var unknownGlyphTexts: [String] = []

    /// The font family every screen uses (Debian's fonts-dejavu-core).
    public static let family = "DejaVu Sans"

    public convenience init(width: Int, height: Int) {
        self.init(
            width: width, height: height,
            surface: cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)))
    }

    /// A canvas drawing on `surface`, which it owns from now on.
    private init(width: Int, height: Int, surface: OpaquePointer) {
        self.width = width
        self.height = height
        self.surface = surface
        context = cairo_create(surface)
    }

    /// A picture drawn by `body` straight into its own bytes: one buffer, where a canvas and its
    /// `snapshot` take two and a copy (the simulated camera draws each preview frame so). The canvas
    /// `body` is given goes with the call.
    public static func drawing(width: Int, height: Int, _ body: (Canvas) -> Void) -> PixelImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { pixels in
            // XRGB8888, 4 bytes a pixel, no padding (RGB24's stride at any width); the surface draws into
            // the array, which outlives it (the canvas goes with this closure).
            let canvas = Canvas(
                width: width, height: height,
                surface: cairo_image_surface_create_for_data(
                    pixels.baseAddress!, CAIRO_FORMAT_RGB24, Int32(width), Int32(height), Int32(width * 4)))
            body(canvas)
            cairo_surface_flush(canvas.surface)
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// Paints the whole canvas with `color` and forgets the cut texts: the start of a new frame.
    public func clear(_ color: Color) {
        cutTexts.removeAll()
        drawnTexts.removeAll()
        unknownGlyphTexts.removeAll()
        fill(bounds, color)
    }

    /// Darkens everything drawn so far, by `amount` (0: not at all, 1: black): the quiet hours' dimmed
    /// display, on panels without a backlight the station can turn down.
    public func shade(_ amount: Double) {
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_set_source_rgba(context, 0, 0, 0, amount)
        cairo_paint(context)
    }

    /// Runs `body` with drawing limited to `regions` (nil: the whole canvas): cairo then touches only
    /// those pixels, which is what makes a partial redraw cheap. Whatever lies wholly outside them is not
    /// drawn at all (`touches`): the texts and stickers it spares cost more than their pixels.
    public func clipped(to regions: [PixelRegion]?, _ body: () -> Void) {
        guard let regions else { return body() }
        cairo_save(context)
        cairo_new_path(context)
        for region in regions {
            cairo_rectangle(
                context, Double(region.x), Double(region.y), Double(region.width), Double(region.height))
        }
        cairo_clip(context)
        let outer = clip
        clip = regions
        body()
        clip = outer
        cairo_restore(context)
    }

    /// The regions drawing is limited to, inside `clipped`.
    public private(set) var clip: [PixelRegion]?

    /// Whether drawing in `rect` can change a pixel: false when it lies wholly outside the clip.
    public func touches(_ rect: Rect) -> Bool {
        guard let clip else { return true }
        return clip.contains { region in
            rect.maxX > Double(region.x) && rect.x < Double(region.x + region.width) && rect.maxY > Double(region.y)
                && rect.y < Double(region.y + region.height)
        }
    }

    /// Makes `rect` fully transparent, for a display plane underneath to show through.
    public func punch(_ rect: Rect) {
        cairo_save(context)
        cairo_set_operator(context, CAIRO_OPERATOR_CLEAR)
        cairo_rectangle(context, rect.x, rect.y, rect.width, rect.height)
        cairo_fill(context)
        cairo_restore(context)
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width), height: Double(height)) }

    public func fill(_ rect: Rect, _ color: Color, radius: Double = 0) {
        path(rect, radius: radius)
        set(color)
        cairo_fill(context)
    }

    public func stroke(_ rect: Rect, _ color: Color, lineWidth: Double, radius: Double = 0) {
        path(rect, radius: radius)
        set(color)
        cairo_set_line_width(context, lineWidth)
        cairo_stroke(context)
    }

    /// An arc of a circle, for the spinner and the check mark ring; angles in radians, clockwise from 3 o'clock.
    public func arc(
        centerX: Double, centerY: Double, radius: Double, from start: Double, to end: Double, _ color: Color,
        lineWidth: Double
    ) {
        cairo_new_path(context)
        cairo_arc(context, centerX, centerY, radius, start, end)
        set(color)
        cairo_set_line_width(context, lineWidth)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_stroke(context)
    }

    /// A polyline, for the check mark.
    public func line(_ points: [(Double, Double)], _ color: Color, lineWidth: Double) {
        guard let first = points.first else { return }
        cairo_new_path(context)
        cairo_move_to(context, first.0, first.1)
        for point in points.dropFirst() { cairo_line_to(context, point.0, point.1) }
        set(color)
        cairo_set_line_width(context, lineWidth)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_stroke(context)
    }

    /// Paints `image` into `rect`: scaled to cover it (cropping the overflow) or to fit inside it.
    public func draw(_ image: PixelImage, in rect: Rect, cover: Bool) {
        let scale =
            cover
            ? max(rect.width / Double(image.width), rect.height / Double(image.height))
            : min(rect.width / Double(image.width), rect.height / Double(image.height))
        image.pixels.withUnsafeBufferPointer { pixels in
            // cairo only reads from a source surface, so lending it the immutable buffer is safe.
            let data = UnsafeMutablePointer(mutating: pixels.baseAddress!)
            let source = cairo_image_surface_create_for_data(
                data, CAIRO_FORMAT_RGB24, Int32(image.width), Int32(image.height), Int32(image.bytesPerRow))
            defer { cairo_surface_destroy(source) }
            cairo_save(context)
            defer { cairo_restore(context) }
            path(rect, radius: 0)
            cairo_clip(context)
            cairo_translate(
                context, rect.midX - Double(image.width) * scale / 2, rect.midY - Double(image.height) * scale / 2)
            cairo_scale(context, scale, scale)
            cairo_set_source_surface(context, source, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
            cairo_paint(context)
        }
    }

    /// Paints a PNG file, with its alpha, fitted into `rect`; false when the file cannot be read.
    /// Wraps `cairo_image_surface_create_from_png`.
    @discardableResult
    public func drawPNG(atPath path: String, in rect: Rect) -> Bool {
        let image = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(image) }
        guard cairo_surface_status(image) == CAIRO_STATUS_SUCCESS else { return false }
        let width = Double(cairo_image_surface_get_width(image))
        let height = Double(cairo_image_surface_get_height(image))
        let scale = min(rect.width / width, rect.height / height)
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_translate(context, rect.midX - width * scale / 2, rect.midY - height * scale / 2)
        cairo_scale(context, scale, scale)
        cairo_set_source_surface(context, image, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
        cairo_paint(context)
        return true
    }

    /// Lays `text` out in `rect` (wrapping, at most `maxLines`, ellipsized past that) and draws it.
    /// With `shrinkToFit`, text too big for `rect` is drawn smaller (down to 60 %) before it is cut. Returns the height the text took.
    @discardableResult
    public func text(
        _ text: String, in rect: Rect, font: Font, color: Color = .white, alignment: TextAlignment = .leading,
        maxLines: Int = 1, verticallyCentered: Bool = false, shrinkToFit: Bool = false
    ) -> Double {
        guard rect.width > 0, rect.height > 0 else { return 0 }
        let layout = pango_cairo_create_layout(context)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let description = pango_font_description_new()!
        defer { pango_font_description_free(description) }
        pango_font_description_set_family(description, Self.family)
        pango_font_description_set_absolute_size(description, font.size * Double(PANGO_SCALE))
        pango_font_description_set_weight(description, font.bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_layout_set_font_description(layout, description)
        pango_layout_set_width(layout, Int32(rect.width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        pango_layout_set_height(layout, -Int32(max(1, maxLines)))
        pango_layout_set_alignment(layout, alignment.pango)
        pango_layout_set_text(layout, text, -1)
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, nil, &logical)
        var size = font.size
        // Shrinking in 8 % steps down to 60 % keeps the text as large as the box allows.
        while shrinkToFit, size > font.size * 0.6,
            pango_layout_is_ellipsized(layout) != 0 || Double(logical.height) > rect.height + 1
        {
            size *= 0.92
            pango_font_description_set_absolute_size(description, size * Double(PANGO_SCALE))
            pango_layout_set_font_description(layout, description)
            pango_layout_get_pixel_extents(layout, nil, &logical)
        }
        if pango_layout_is_ellipsized(layout) != 0 || Double(logical.height) > rect.height + 1 { cutTexts.append(text) }
        if pango_layout_get_unknown_glyphs_count(layout) > 0 { unknownGlyphTexts.append(text) }
        drawnTexts.append(text)
        let used = Double(logical.height)
        let top = verticallyCentered ? rect.midY - used / 2 : rect.y
        cairo_save(context)
        defer { cairo_restore(context) }
        path(rect, radius: 0)
        cairo_clip(context)
        set(color)
        cairo_move_to(context, rect.x, top)
        pango_cairo_show_layout(context, layout)
        return used
    }

    /// The pixels drawn so far, in place: BGRX (cairo's ARGB32 on a little-endian CPU), `stride` bytes per
    /// row. A display copies them out from here, without the copy a snapshot makes.
    public func withPixels<Result, Failure: Error>(
        _ body: (_ pixels: UnsafePointer<UInt8>, _ stride: Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        cairo_surface_flush(surface)
        return try body(cairo_image_surface_get_data(surface)!, Int(cairo_image_surface_get_stride(surface)))
    }

    /// The pixels drawn so far, lent as a frame for a display.
    public func withFrame<Result, Failure: Error>(_ body: (FramePixels) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try withPixels { pixels, stride throws(Failure) in
            try body(FramePixels(width: width, height: height, stride: stride, bytes: pixels))
        }
    }

    /// The pixels drawn so far.
    public func snapshot() -> PixelImage {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBytes { target in
            for row in 0..<height {
                (target.baseAddress! + row * width * 4).copyMemory(from: data + row * stride, byteCount: width * 4)
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    /// Writes the canvas as a PNG file, atomically (see `PNG.write`).
    public func writePNG(to path: String) throws(ImagingError) {
        try withFrame { frame throws(ImagingError) in try PNG.write(frame, to: path) }
    }

    private func path(_ rect: Rect, radius: Double) {
        cairo_new_path(context)
        let r = min(radius, rect.width / 2, rect.height / 2)
        guard r > 0 else {
            cairo_rectangle(context, rect.x, rect.y, rect.width, rect.height)
            return
        }
        cairo_arc(context, rect.maxX - r, rect.y + r, r, -Double.pi / 2, 0)
        cairo_arc(context, rect.maxX - r, rect.maxY - r, r, 0, Double.pi / 2)
        cairo_arc(context, rect.x + r, rect.maxY - r, r, Double.pi / 2, Double.pi)
        cairo_arc(context, rect.x + r, rect.y + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(context)
    }

    private func set(_ color: Color) {
        cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
    }
}

/// How text lines up in its box.
public enum TextAlignment: Sendable {
    case leading, center, trailing

    var pango: PangoAlignment {
        switch self {
        case .leading: PANGO_ALIGN_LEFT
        case .center: PANGO_ALIGN_CENTER
        case .trailing: PANGO_ALIGN_RIGHT
        }
    }
}
