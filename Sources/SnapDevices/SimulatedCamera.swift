import Foundation
import Logging
import SnapFiles
import SnapImaging

/// The embedded default camera: a moving test scene, or the JPEG files of a folder shown in turn.
public struct SimulatedCamera: Camera {
    /// Draws the test scene at a size, `seconds` after start, labelled with the time.
    public typealias Scene = @Sendable (_ width: Int, _ height: Int, _ seconds: Double, _ label: String) -> PixelImage

    public var previewSize: (width: Int, height: Int)
    public var stillSize: (width: Int, height: Int)
    public var framesPerSecond: Int
    /// JPEG files shown in turn, each for a few seconds; empty for the test scene.
    public var pictures: [String]
    private let scene: Scene
    private let started = ContinuousClock.now

    /// `source` is a folder of JPEG files, or "" for `scene`. A folder without JPEGs is an error.
    public init(
        previewSize: (Int, Int), stillSize: (Int, Int), framesPerSecond: Int, source: String,
        scene: @escaping Scene = SimulatedCamera.plainScene
    ) throws(DeviceError) {
        self.previewSize = previewSize
        self.stillSize = stillSize
        self.framesPerSecond = max(1, framesPerSecond)
        self.scene = scene
        guard !source.isEmpty else {
            pictures = []
            return
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: source) else {
            throw DeviceError(.camera, "camera.simulated_source \(source) cannot be read")
        }
        pictures = names.filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
            .map { source + "/" + $0 }
        guard !pictures.isEmpty else {
            throw DeviceError(.camera, "camera.simulated_source \(source) holds no JPEG files")
        }
    }

    public func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    {
        let interval = Duration.milliseconds(1000 / framesPerSecond)
        var next = ContinuousClock.now
        var first = true
        while !Task.isCancelled {
            slot.put(PreviewFrame(try frame(width: previewSize.width, height: previewSize.height)))
            if first {
                started()
                first = false
            }
            next += interval
            do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
        }
    }

    public func captureStill() async throws(DeviceError) -> PixelImage {
        try frame(width: stillSize.width, height: stillSize.height)
    }

    private func frame(width: Int, height: Int) throws(DeviceError) -> PixelImage {
        let seconds = (ContinuousClock.now - started).seconds
        guard !pictures.isEmpty else {
            let time = Date().formatted(date: .omitted, time: .standard)
            return scene(width, height, seconds, "Simulated camera · \(time)")
        }
        let path = pictures[Int(seconds / 5) % pictures.count]
        do {
            let image = try JPEG.decode(FileBytes.read(path), minimumLongestSide: max(width, height))
            return image.downscaled(toFit: max(width, height))
        } catch {
            throw DeviceError(.camera, "\(path): \(error)")
        }
    }
}

extension SimulatedCamera {
    /// A scene without drawing: grey that brightens and darkens over a few seconds, so frames differ.
    public static let plainScene: Scene = { width, height, seconds, _ in
        let level = UInt8(96 + 64 * (1 + sin(seconds)) / 2)
        return PixelImage(width: width, height: height, blue: level, green: level, red: level)
    }
}
