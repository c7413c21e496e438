import SnapCore
import SnapFiles
import SnapImaging
import Synchronization

/// Stills between the shutter and the stored file, by photo id: the pipeline reads them, and the
/// processing screen shows them. At most one is kept (a full-size still is 12 MB and more), and only
/// until its photo is stored.
public final class CaptureCache: Sendable {
    private let entries = Lock<[(PhotoID, PixelImage)]>([])
    private let limit: Int

    public init(limit: Int = 1) {
        self.limit = limit
    }

    public func put(_ image: PixelImage, for id: PhotoID) {
        entries.withLock { entries in
            entries.append((id, image))
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
    }

    /// The photo is stored (or failed): its still is not needed any more.
    public func remove(_ id: PhotoID) {
        let gone = entries.withLock { entries in
            let gone = entries.filter { $0.0 == id }
            entries.removeAll { $0.0 == id }
            return gone
        }
        _ = gone  // freed here, outside the lock
    }

    public func image(for id: PhotoID) -> PixelImage? {
        entries.withLock { entries in entries.last { $0.0 == id }?.1 }
    }
}
