import CYUV
import SnapImaging

/// Camera buffers to the BGRX pixels the screens and the encoder take, with libyuv.
///
/// libcamera hands out NV12 and YUV420 (the Pi's ISP, most CSI pipelines), YUYV and MJPEG (USB cameras),
/// RGB888 and XRGB8888. Strides are the camera's; a YUV buffer that comes as one plane has its chroma
/// right after the luma rows.
public enum CameraPixels {
    /// The formats `convert` takes.
    public static let supported: [FourCC] = [.xrgb8888, .nv12, .yuv420, .yuyv, .bgr888, .rgb888, .mjpeg]

    /// The buffer as BGRX pixels; an MJPEG frame is decoded DCT-scaled down to `longestSide` (at least).
    public static func convert(_ buffer: CameraBuffer, longestSide: Int = .max) throws(DeviceError) -> PixelImage {
        let (width, height, stride) = (buffer.width, buffer.height, buffer.stride)
        guard let first = buffer.planes.first, width > 0, height > 0 else {
            throw DeviceError(.camera, "an empty \(buffer.format) frame")
        }
        if buffer.format == .mjpeg {
            let bytes = Array(UnsafeBufferPointer(start: first, count: buffer.planeBytes.first ?? 0))
            // A damaged frame is dropped even when TurboJPEG only warns: the next frame is whole.
            let warnings = JPEGWarnings()
            let image: PixelImage
            do { image = try JPEG.decode(bytes, minimumLongestSide: longestSide, warnings: warnings) } catch {
                throw DeviceError(.camera, "a corrupt MJPEG frame: \(error)")
            }
            if let warning = warnings.messages.first {
                throw DeviceError(.camera, "a corrupt MJPEG frame: \(warning)")
            }
            return image
        }
        func plane(_ index: Int, offset: Int) -> UnsafePointer<UInt8> {
            index < buffer.planes.count ? buffer.planes[index] : first + offset
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let (w, h, s, out) = (Int32(width), Int32(height), Int32(stride), Int32(width * 4))
        let result: Int32 = pixels.withUnsafeMutableBufferPointer { target in
            let dst = target.baseAddress
            switch buffer.format {
            case .xrgb8888:
                return ARGBCopy(first, s, dst, out, w, h)
            case .nv12:
                return NV12ToARGB(first, s, plane(1, offset: stride * height), s, dst, out, w, h)
            case .yuv420:
                let u = plane(1, offset: stride * height)
                let v = plane(2, offset: stride * height + (stride / 2) * ((height + 1) / 2))
                return I420ToARGB(first, s, u, s / 2, v, s / 2, dst, out, w, h)
            case .yuyv:
                return YUY2ToARGB(first, s, dst, out, w, h)
            case .rgb888:  // B, G, R in memory: libyuv's RGB24
                return RGB24ToARGB(first, s, dst, out, w, h)
            case .bgr888:  // R, G, B in memory: libyuv's RAW
                return RAWToARGB(first, s, dst, out, w, h)
            default:
                return -1
            }
        }
        guard result == 0 else {
            throw DeviceError(
                .camera, "frames in \(buffer.format) cannot be converted; supported: \(supported.map(\.description))")
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }
}
