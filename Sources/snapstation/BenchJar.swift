import ArgumentParser
import Foundation
import SnapApp
import SnapFiles
import SnapImaging
import SnapScreens

extension SnapStation {
    struct BenchJar: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-jar",
            abstract: "Print what the jar's physics and frames cost, as JSON.",
            discussion: "Run by Tests/Benchmarks/jar.py, which compares the frames with Pillow drawing the same scene.",
            shouldDisplay: false)

        @Option(help: "Frame sizes, such as 800x480.") var size: [String] = ["800x480", "1920x1080"]
        @Option(help: "Sticker counts.") var stickers: [Int] = [10, 60]
        @Option(help: "Frames composed per case.") var frames = 240
        @Option(help: "A folder for the sample sticker and thumbnail.") var out = "/tmp/snapstation-bench-jar"

        func run() throws {
            try AtomicFile.createFolder(out)
            // The sample meal: the simulated camera's plate, cut out against the empty table.
            let scene = TestScene.frame(width: 2028, height: 1520, seconds: 0, label: "")
            let table = TestScene.frame(width: 2028, height: 1520, seconds: 0, label: "", plate: false)
            let stickerPath = out + "/sticker.png"
            let thumbnailPath = out + "/thumb.jpg"
            try AtomicFile.write(
                PNG.encode(withAlpha: StickerMaker().make(photo: scene, reference: table)), to: stickerPath)
            try AtomicFile.write(JPEG.encode(scene.downscaled(toFit: 320), quality: 85), to: thumbnailPath)
            var cases: [[String: Any]] = []
            for text in size {
                let parts = text.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2 else { throw ValidationError("size \(text) is not WIDTHxHEIGHT") }
                for count in stickers {
                    let figures = JarBenchmark.run(
                        width: parts[0], height: parts[1], stickers: count, frames: frames, stickerPath: stickerPath,
                        thumbnailPath: thumbnailPath)
                    cases.append([
                        "size": text, "stickers": count, "step_ms": figures.stepMs, "frame_ms": figures.frameMs,
                        "fps": figures.framesPerSecond, "steps_to_sleep": figures.stepsToSleep,
                        "drop_whole_ms": figures.dropWholeMs, "drop_partial_ms": figures.dropPartialMs,
                        "drop_partial_share": figures.dropPartialShare,
                    ])
                }
            }
            let data = try JSONSerialization.data(
                withJSONObject: ["cases": cases, "sticker": stickerPath], options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
