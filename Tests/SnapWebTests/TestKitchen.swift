import Foundation
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore
import SnapTestSupport
import SnapWeb
import Synchronization
import Testing

/// The page's meals without a station: the real pipeline (`UploadedPhoto.process`) and the real store,
/// with an AI that answers what the test says and remembers what it was asked. (The station's own,
/// `StationPageMeals`, with the OpenAI stand-in, is in the end-to-end and browser tests.)
final class TestKitchen: PageMeals {
    private let stores = Mutex<StationStore?>(nil)
    let pipeline = PhotoPipeline(maxSide: 400, thumbnailSide: 100)
    /// The AI's answer, or its failure.
    let answer: Mutex<Result<MealAnalysis, AIFailure>>
    /// The photos' sizes (width × height) and the sentences the AI was asked about.
    let asked = Mutex<[String]>([])

    init(answer: Result<MealAnalysis, AIFailure> = .success(TestKitchen.meal)) {
        self.answer = Mutex(answer)
    }

    /// The station's store, once the station has made it.
    func attach(_ store: StationStore) { stores.withLock { $0 = store } }

    static let meal = MealAnalysis(
        title: "Rye bread with butter", totals: Macros(calories: 310, protein: 9, carbs: 38, fats: 13),
        items: [
            MealItem(name: "Rye bread", grams: 80, macros: Macros(calories: 200, protein: 7, carbs: 36, fats: 2)),
            MealItem(name: "Butter", grams: 14, macros: Macros(calories: 110, protein: 2, carbs: 2, fats: 11)),
        ])

    func keep(photo bytes: [UInt8], as id: PhotoID, day: LocalDay, at moment: Date) async throws -> ProcessedPhoto {
        let output = try UploadedPhoto.process(bytes, with: pipeline)
        let store = try #require(stores.withLock { $0 })
        let paths = store.paths(for: id, day: day)
        let photo = ProcessedPhoto(id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: moment)
        try store.storePhoto(photo, jpeg: output.photo, thumbnail: output.thumbnail)
        return photo
    }

    func analyse(_ photo: ProcessedPhoto) async throws(AIFailure) -> MealAnalysis {
        let size = (try? JPEG.size(of: FileBytes.readIfPresent(photo.photoPath) ?? [])) ?? (0, 0)
        asked.withLock { $0.append("photo \(size.0)x\(size.1)") }
        return try answer.withLock { $0 }.get()
    }

    func describe(_ sentence: String) async throws(AIFailure) -> MealAnalysis {
        asked.withLock { $0.append("sentence \(sentence)") }
        return try answer.withLock { $0 }.get()
    }
}
