import SnapImaging
import Synchronization

/// One live-preview frame: a picture ready to draw, or a camera buffer that is converted when first drawn
/// and goes back to the camera when its last holder lets go.
///
/// The preview slot, the display and the reference-frame service may each hold the frame; the buffer is
/// returned (`release`) in `deinit`, so a stale frame dropped from the slot frees its buffer at once,
/// and a frame being drawn keeps its buffer until the drawing is done.
public final class PreviewFrame: Sendable {
    public let width: Int
    public let height: Int
    /// CLOCK_MONOTONIC time of the frame's exposure, when the camera says.
    public let timestamp: Duration?
    private let convert: @Sendable () -> PixelImage?
    private let release: (@Sendable () -> Void)?
    private let converted = Mutex<PixelImage??>(nil)

    /// A frame that is already a picture.
    public init(_ image: PixelImage, timestamp: Duration? = nil) {
        width = image.width
        height = image.height
        self.timestamp = timestamp
        convert = { image }
        release = nil
    }

    /// A camera buffer: `convert` makes the picture (nil if the buffer is no longer valid), `release`
    /// hands the buffer back.
    public init(
        width: Int, height: Int, timestamp: Duration?, convert: @escaping @Sendable () -> PixelImage?,
        release: @escaping @Sendable () -> Void
    ) {
        self.width = width
        self.height = height
        self.timestamp = timestamp
        self.convert = convert
        self.release = release
    }

    deinit { release?() }

    /// The frame as BGRX pixels, converted once.
    public var image: PixelImage? {
        converted.withLock { converted in
            if let done = converted { return done }
            let image = convert()
            converted = .some(image)
            return image
        }
    }
}
