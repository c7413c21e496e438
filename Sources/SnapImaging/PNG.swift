internal import CPangoCairo
import Glibc

/// PNG encoding of an image with alpha, through cairo.
public enum PNG {
    /// Encodes `image`, reading its fourth byte as straight (unpremultiplied) alpha.
    /// Wraps `cairo_surface_write_to_png_stream`.
    public static func encode(withAlpha image: PixelImage) throws(ImagingError) -> [UInt8] {
        // cairo's ARGB32 is premultiplied.
        var premultiplied = image.pixels
        for index in stride(from: 0, to: premultiplied.count, by: 4) {
            let alpha = UInt16(premultiplied[index + 3])
            for channel in 0..<3 {
                premultiplied[index + channel] = UInt8((UInt16(premultiplied[index + channel]) * alpha + 127) / 255)
            }
        }
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = premultiplied.withUnsafeMutableBufferPointer { pixels -> cairo_status_t in
            let surface = cairo_image_surface_create_for_data(
                pixels.baseAddress, CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height),
                Int32(image.bytesPerRow))
            defer { cairo_surface_destroy(surface) }
            return withExtendedLifetime(sink) {
                cairo_surface_write_to_png_stream(
                    surface,
                    { context, data, length in
                        let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                        return CAIRO_STATUS_SUCCESS
                    }, Unmanaged.passUnretained(sink).toOpaque())
            }
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .png(
                call: "cairo_surface_write_to_png_stream", message: String(cString: cairo_status_to_string(status)))
        }
        return sink.bytes
    }

    /// Writes `frame` as an opaque PNG file, atomically: a temporary file renamed into place, so a reader
    /// never sees half a frame. Wraps `cairo_surface_write_to_png`.
    public static func write(_ frame: FramePixels, to path: String) throws(ImagingError) {
        // cairo only reads the pixels; its API takes a mutable pointer for surfaces it may draw on.
        let surface = cairo_image_surface_create_for_data(
            UnsafeMutablePointer(mutating: frame.bytes), CAIRO_FORMAT_RGB24, Int32(frame.width), Int32(frame.height),
            Int32(frame.stride))
        defer { cairo_surface_destroy(surface) }
        let temporary = path + ".partial"
        let status = cairo_surface_write_to_png(surface, temporary)
        guard status == CAIRO_STATUS_SUCCESS else {
            unlink(temporary)
            throw .png(call: "cairo_surface_write_to_png", message: String(cString: cairo_status_to_string(status)))
        }
        guard rename(temporary, path) == 0 else {
            let error = errno
            unlink(temporary)
            throw .png(call: "rename", message: "\(path): \(String(cString: strerror(error)))")
        }
    }
}
