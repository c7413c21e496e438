import SnapCore
import SnapImaging
import Synchronization

/// Stills between the shutter and the stored file, by photo id: the pipeline reads them, and the
/// processing screen shows them. Only the newest few are kept.
public final class CaptureCache: Sendable {
    private let entries = Mutex<[(PhotoID, PixelImage)]>([])
    private let limit: Int

    public init(limit: Int = 3) {
        self.limit = limit
    }

    public func put(_ image: PixelImage, for id: PhotoID) {
        entries.withLock { entries in
            entries.append((id, image))
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
    }

    public func image(for id: PhotoID) -> PixelImage? {
        entries.withLock { entries in entries.last { $0.0 == id }?.1 }
    }
}
