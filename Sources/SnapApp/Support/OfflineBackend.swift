import Foundation
import SnapCore
import SnapServices

/// A backend that cannot be reached: jobs stay queued, nothing is lost.
struct OfflineBackend: GroupBackend {
    func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void) async throws(UploadFailure) {
        throw .offline
    }
    func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem] { throw .offline }
    func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8] {
        throw .offline
    }
    func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID] { throw .offline }
}
