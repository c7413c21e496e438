import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import Synchronization

/// The station's picture of its empty scene, which the sticker is cut against.
public final class ReferenceFrame: Sendable {
    private struct State {
        var image: PixelImage?
        var taken: ContinuousClock.Instant?
        var stale = true
    }

    private let state = Lock(State())

    public init() {}

    public var image: PixelImage? { state.withLock { $0.image } }

    func store(_ image: PixelImage) {
        state.withLock { $0 = State(image: image, taken: .now, stale: false) }
    }

    /// A photo was just taken: the scene may have changed, so the next idle moment takes a new reference.
    func markStale() {
        state.withLock { $0.stale = true }
    }

    func needsRefresh(olderThan age: Duration) -> Bool {
        state.withLock { state in state.stale || state.taken.map { ContinuousClock.now - $0 > age } ?? true }
    }
}
