import Foundation
import SnapCore
import SnapStore

/// The restore's promise, checked on any rows: the bytes are read as lines (`TABLE<tab>VALUE<tab>…`, a
/// value `\N` NULL), put in a backup's store of the station's own schema, restored as a restore restores
/// them (`StationStore.restored`) and read back as the station reads them. Whatever the rows, nothing
/// crashes, every file a restored row leads to is one of the photos' or the inbox's (under the new state
/// folder, never in the old one the backup names nor anywhere else), no paired browser comes with them, and
/// the addresses a key goes to wait for the owner.
enum RestoreCheck {
    static func rebuild(_ bytes: [UInt8]) {
        let rows = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap {
            line -> (table: String, values: [String?])? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let table = fields.first, !table.isEmpty else { return nil }
            return (table, fields.dropFirst().map { $0 == "\\N" ? nil : $0 })
        }
        let folder = NSTemporaryDirectory() + "snapfuzz-restore-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard let (store, _) = try? StationStore.restored(rows: rows, madeIn: "/var/lib/snapstation", in: folder)
        else { return }
        let day = LocalDay(year: 2026, month: 11, day: 30)
        guard let audit = try? store.audit() else { preconditionFailure("a restored store that cannot be read") }
        for path in audit.namedFiles {
            precondition(path.hasPrefix(folder + "/photos/"), "a restored row names a file outside the photos: \(path)")
        }
        for meal in (try? store.meals(on: day)) ?? [] {
            for path in [meal.photo.photoPath, meal.photo.thumbnailPath, meal.photo.stickerPath ?? ""]
            where !path.isEmpty {
                precondition(path.hasPrefix(folder + "/photos/"), "a restored meal names \(path)")
            }
        }
        for photo in (try? store.receivedPhotos(now: .distantPast)) ?? [] {
            precondition(photo.path.hasPrefix(folder + "/inbox/"), "a restored received photo names \(photo.path)")
        }
        for job in (try? store.sharedPhotos()) ?? [] where !job.photoPath.isEmpty {
            precondition(job.photoPath.hasPrefix(folder + "/photos/"), "a restored upload sends \(job.photoPath)")
        }
        for job in (try? store.dueAnalyses(now: .distantFuture).due) ?? [] where !job.photo.photoPath.isEmpty {
            precondition(
                job.photo.photoPath.hasPrefix(folder + "/photos/"), "a restored analysis reads \(job.photo.photoPath)")
        }
        precondition(((try? store.sessions()) ?? []).isEmpty, "a paired browser came with the restored rows")
        let kept = (try? store.runtimeSettings()) ?? RuntimeSettings()
        precondition(
            kept.aiService == nil && kept.mqtt == nil && kept.notices == nil, "an address in force from a backup")
        _ = try? store.snapshot(groups: ["Fuzz"], day: day, mealDays: 7)
        _ = try? store.household()
        _ = try? store.plannedMeals()
        _ = try? store.shoppingList()
        _ = try? store.pendingReviews()
        _ = try? store.mealSummaries(on: day)
    }
}
