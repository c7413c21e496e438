import Foundation
import Logging
import SnapCore
import SnapDevices
import SnapImaging
import SnapScreens

/// The figures behind Tests/Benchmarks/preview.py: what one composed preview frame costs, and how long
/// a still takes from the trigger.
public enum PreviewBenchmark {
    public struct Compose: Codable, Sendable {
        public var width: Int
        public var height: Int
        public var frames: Int
        /// CPU time of the composing thread per frame, medians in milliseconds.
        public var cpuMs: Double
        public var convertMs: Double
        public var drawMs: Double
        public var blitMs: Double
    }

    /// Composes `frames` live-preview frames the way the station does on a panel without a YUV plane: an
    /// NV12 camera buffer converted to pixels (libyuv), the ready screen drawn over it (cairo, pango), and
    /// the canvas copied into an XRGB8888 scan-out buffer (libyuv).
    public static func compose(width: Int, height: Int, frames: Int) -> Compose {
        let luma = [UInt8](repeating: 120, count: width * height)
        var nv12 = luma + [UInt8](repeating: 128, count: width * height / 2)
        let renderer = ScreenRenderer(images: .disk())
        let canvas = Canvas(width: width, height: height)
        let blit = PanelBlit(rotation: 0, format: .xrgb8888)
        var panel = [UInt8](repeating: 0, count: width * height * 4)
        let ready = Screen.ready(
            ReadyScreen(
                mode: .group, groupName: "Friends", totals: Macros(calories: 0, protein: 0, carbs: 0, fats: 0),
                mealThumbnails: [], groupPhotoAvailable: true, analysesLeft: 10, missingDevices: []))
        var convert: [Double] = []
        var draw: [Double] = []
        var copy: [Double] = []
        var total: [Double] = []
        for frame in 0..<frames {
            // A moving bar, so no stage can coast on an unchanged frame.
            let bar = (frame * 7) % max(1, height - 8)
            for row in bar..<(bar + 8) {
                nv12.replaceSubrange(row * width..<(row + 1) * width, with: repeatElement(235, count: width))
            }
            let start = threadCPU()
            let image: PixelImage? = nv12.withUnsafeBufferPointer { bytes in
                let buffer = CameraBuffer(
                    still: false, format: .nv12, width: width, height: height, stride: width,
                    planes: [bytes.baseAddress!, bytes.baseAddress! + width * height],
                    planeBytes: [width * height, width * height / 2], timestamp: .zero, sequence: frame, cookie: 0)
                return try? CameraPixels.convert(buffer)
            }
            let converted = threadCPU()
            renderer.draw(ready, preview: image, on: canvas)
            let drawn = threadCPU()
            panel.withUnsafeMutableBufferPointer { target in
                canvas.withFrame { blit.copy($0, to: target.baseAddress!, stride: width * 4) }
            }
            let copied = threadCPU()
            for row in bar..<(bar + 8) { nv12.replaceSubrange(row * width..<(row + 1) * width, with: luma[0..<width]) }
            convert.append(converted - start)
            draw.append(drawn - converted)
            copy.append(copied - drawn)
            total.append(copied - start)
        }
        return Compose(
            width: width, height: height, frames: frames, cpuMs: median(total), convertMs: median(convert),
            drawMs: median(draw), blitMs: median(copy))
    }

    /// Milliseconds from asking for a still to having it: the simulated camera renders its frame on demand.
    public static func simulatedStills(_ count: Int, width: Int, height: Int) async throws -> [Double] {
        let camera = try SimulatedCamera(
            previewSize: (800, 480), stillSize: (width, height), framesPerSecond: 15, source: "",
            scene: TestScene.cameraScene)
        var figures: [Double] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            _ = try await camera.captureStill()
            figures.append((ContinuousClock.now - start).seconds * 1000)
        }
        return figures
    }

    /// The shutter lag of a real camera through libcamera (trigger to the still's sensor timestamp), in
    /// milliseconds; throws when there is no camera.
    public static func cameraStills(_ count: Int, selector: String, logger: Logger) async throws -> [Double] {
        let camera = LibcameraCamera(
            settings: .init(selector: selector, preview: (800, 480), still: (2028, 1520)), logger: logger)
        let slot = PreviewSlot()
        let (started, startedContinuation) = AsyncStream<Result<Void, DeviceError>>.makeStream()
        let preview = Task {
            do throws(DeviceError) {
                try await camera.streamPreview(into: slot) { startedContinuation.yield(.success(())) }
            } catch {
                startedContinuation.yield(.failure(error))
            }
            startedContinuation.finish()
        }
        defer { preview.cancel() }
        for await outcome in started {
            try outcome.get()
            break
        }
        var figures: [Double] = []
        for _ in 0..<count {
            await camera.prepareStill()
            _ = try await camera.captureStill()
            if let lag = camera.lastShutterLag { figures.append(lag.seconds * 1000) }
        }
        preview.cancel()
        _ = await preview.result
        return figures
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// CPU time of this thread, in milliseconds.
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }
}
