import Foundation
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapStore
import SnapWeb

/// A meal logged on the owner's page, through the station's own parts: a phone's photo runs through the
/// capture's pipeline (its filter, its sticker, its size and quality) on the station's pipeline thread,
/// one photo at a time with the captures, and is kept where a capture is; the AI is asked as for a
/// capture, with the dietary preferences and language in force, within `ai.wait_seconds`.
///
/// The camera's mounting turn (`camera.rotation`) is not applied: a phone's photo is turned by its own
/// EXIF orientation alone.
struct StationPageMeals: PageMeals {
    let store: StationStore
    let live: LiveSettings
    let thread: SerialThread
    let analyzer: any MealAnalyzer
    let minimumFreeBytes: UInt64
    let wait: Duration
    /// The analysis's `wait` is counted on this clock.
    let clock: any ShellClock

    func keep(photo bytes: [UInt8], as id: PhotoID, day: LocalDay, at moment: Date) async throws -> ProcessedPhoto {
        if let free = try? FreeSpace.available(at: store.directory), free < minimumFreeBytes {
            throw PageMealsProblem.diskFull
        }
        var chosen = live.pipeline
        chosen.orientation = .upright
        let pipeline = chosen
        defer { _ = thread.submit { MemoryPolicy.trim() } }
        let output = try await thread.run { () throws(UploadedPhoto.Problem) in
            try UploadedPhoto.process(bytes, with: pipeline)
        }
        let paths = store.paths(for: id, day: day)
        let photo = ProcessedPhoto(
            id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: moment, quality: output.verdict,
            stickerPath: output.sticker == nil ? nil : paths.sticker)
        try await store.writing { store throws(StoreError) in
            try store.storePhoto(photo, jpeg: output.photo, thumbnail: output.thumbnail, sticker: output.sticker)
        }
        return photo
    }

    func analyse(_ photo: ProcessedPhoto) async throws(AIFailure) -> MealAnalysis {
        guard let bytes = FileBytes.readIfPresent(photo.photoPath) else { throw .badPhoto("the photo file is gone") }
        return try await StationService.analyse(
            bytes, with: analyzer, dietary: live.dietary, language: live.language, within: wait, on: clock)
    }

    func describe(_ sentence: String) async throws(AIFailure) -> MealAnalysis {
        try await analyzer.describe(sentence, dietary: live.dietary, language: live.language)
    }
}
