import ArgumentParser
import Foundation
import Logging
import SnapApp

extension SnapStation {
    struct BenchPreview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-preview",
            abstract: "Print the CPU time per composed preview frame and the trigger-to-still latency, as JSON.",
            discussion: "Run by Tests/Benchmarks/preview.py, which compares the figures with Pillow.",
            shouldDisplay: false)

        @Option(help: "Frame sizes to compose, such as 800x480.") var size: [String] = ["800x480", "1920x1080"]
        @Option(help: "Frames composed per size.") var frames = 120
        @Option(help: "Stills taken per camera.") var stills = 10
        @Option(help: "The libcamera camera to time, or \"\" for none.") var camera = "first"

        func run() async throws {
            var output: [String: Any] = [:]
            var compose: [[String: Any]] = []
            for text in size {
                let parts = text.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2 else { throw ValidationError("size \(text) is not WIDTHxHEIGHT") }
                let figures = PreviewBenchmark.compose(width: parts[0], height: parts[1], frames: frames)
                compose.append([
                    "size": text, "frames": figures.frames, "cpu_ms": figures.cpuMs, "convert_ms": figures.convertMs,
                    "draw_ms": figures.drawMs, "blit_ms": figures.blitMs,
                ])
            }
            output["compose"] = compose
            output["simulated_still_ms"] = try await PreviewBenchmark.simulatedStills(stills, width: 2028, height: 1520)
            if !camera.isEmpty {
                var logger = Logger(label: "bench")
                logger.logLevel = .error
                do {
                    output["camera_shutter_lag_ms"] = try await PreviewBenchmark.cameraStills(
                        stills, selector: camera, logger: logger)
                } catch {
                    output["camera_skipped"] = "\(error)"
                }
            }
            let data = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
