import SnapCore
import SnapFiles
import SnapImaging

/// Where the renderer gets pictures: the capture being worked on, and JPEG files on disk.
public struct ScreenImages: Sendable {
    /// The still of a capture that has no processed file yet.
    public var capture: @Sendable (PhotoID) -> PixelImage?
    /// A JPEG file decoded to at least `minimumSide` on its longest side; nil when missing or unreadable.
    public var file: @Sendable (_ path: String, _ minimumSide: Int) -> PixelImage?

    public init(
        capture: @escaping @Sendable (PhotoID) -> PixelImage?,
        file: @escaping @Sendable (_ path: String, _ minimumSide: Int) -> PixelImage?
    ) {
        self.capture = capture
        self.file = file
    }

    /// No pictures at all: every photo slot shows its placeholder.
    public static let none = ScreenImages(capture: { _ in nil }, file: { _, _ in nil })

    /// Reads JPEG files from disk with DCT-scaled decoding; captures come from `capture`.
    public static func disk(capture: @escaping @Sendable (PhotoID) -> PixelImage? = { _ in nil }) -> ScreenImages {
        ScreenImages(capture: capture) { path, side in
            guard let bytes = FileBytes.readIfPresent(path) else { return nil }
            return try? JPEG.decode(bytes, minimumLongestSide: side)
        }
    }
}
