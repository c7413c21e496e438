import Foundation
import SnapFiles
import SnapImaging
import Synchronization

/// The embedded default display: PNG frames in a folder.
///
/// Every screen change is written; live-preview frames at most `previewFramesPerSecond`. Files are named
/// `NNNNNN-SCREEN.png` in order, and `latest.png` is always the newest. Only the newest `keep` numbered
/// frames stay, so a station left running does not fill its disk.
public final class HeadlessDisplay: Display {
    public let width: Int
    public let height: Int
    public let folder: String
    public let previewFramesPerSecond: Double
    public let keep: Int
    public var recordsEveryScreen: Bool { true }

    private struct State {
        var sequence = 0
        var screenName = "start"
        var caption = ""
        /// The words drawn on the screen, one text a line, written beside its frames as `.words`.
        var texts: [String] = []
        var lastPreviewWrite: ContinuousClock.Instant?
        var written: [String] = []
    }

    private let state = Lock(State())

    public init(width: Int, height: Int, folder: String, previewFramesPerSecond: Double, keep: Int = 2000)
        throws(DeviceError)
    {
        self.width = width
        self.height = height
        self.folder = folder
        self.previewFramesPerSecond = previewFramesPerSecond
        self.keep = keep
        do {
            try AtomicFile.createFolder(folder)
        } catch {
            throw DeviceError(.display, "frames folder: \(error)")
        }
        // A frame cut off by a stop mid-write.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where name.hasSuffix(".partial") {
            unlink(folder + "/" + name)
        }
    }

    /// A caption file, as the PNG frames are written: in full under a `.partial` name, then renamed.
    private static func write(_ text: Data, to path: String) throws {
        let temporary = path + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: text), rename(temporary, path) == 0 else {
            throw FileError(call: "write", path: path, errno: errno)
        }
    }

    public func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError) {
        let now = ContinuousClock.now
        let name: String? = state.withLock { state in
            switch change {
            case .screen(let screen, let caption, let texts):
                state.screenName = screen
                state.caption = caption
                state.texts = texts
            case .preview, .regions:
                guard previewFramesPerSecond > 0 else { return nil }
                if let last = state.lastPreviewWrite, (now - last).seconds < 1 / previewFramesPerSecond { return nil }
            }
            state.lastPreviewWrite = now
            state.sequence += 1
            return String(format: "%06d-%@.png", state.sequence, state.screenName)
        }
        guard let name else { return }
        let (caption, texts) = state.withLock { ($0.caption, $0.texts) }
        do {
            try PNG.write(frame, to: folder + "/" + name)
            try PNG.write(frame, to: folder + "/latest.png")
            if !caption.isEmpty {
                let text = Data((caption + "\n").utf8)
                try Self.write(text, to: folder + "/" + name.dropLast(4) + ".txt")
                try Self.write(text, to: folder + "/latest.txt")
            }
            if !texts.isEmpty {
                try Self.write(
                    Data(texts.map { $0 + "\n" }.joined().utf8), to: folder + "/" + name.dropLast(4) + ".words")
            }
        } catch {
            throw DeviceError(.display, "\(folder)/\(name): \(error)")
        }
        let expired = state.withLock { state -> [String] in
            state.written.append(name)
            guard state.written.count > keep else { return [] }
            let old = Array(state.written.prefix(state.written.count - keep))
            state.written.removeFirst(old.count)
            return old
        }
        for old in expired {
            unlink(folder + "/" + old)
            unlink(folder + "/" + old.dropLast(4) + ".txt")
            unlink(folder + "/" + old.dropLast(4) + ".words")
        }
    }
}
