import Foundation
import SnapCore
import SnapImaging

/// What the owner's page needs of the station to log a meal without its camera (`LogRoom`): a phone's
/// photo through the capture's own pipeline, kept as a capture is, and the AI asked about a photo or a
/// sentence as the station asks it. The station's is `StationPageMeals` (SnapApp); the pipeline runs on
/// the station's pipeline thread, one photo at a time whoever sent it.
public protocol PageMeals: Sendable {
    /// Runs a phone's photo (the bytes as sent) through the capture's pipeline and keeps it as the photo
    /// `id` of `day`, or says why not: not a whole JPEG the station can decode (`UploadedPhoto.Problem`),
    /// the disk nearly full, the store failing.
    func keep(photo bytes: [UInt8], as id: PhotoID, day: LocalDay, at moment: Date) async throws -> ProcessedPhoto

    /// The AI's estimate of a kept photo, with the dietary preferences and language in force.
    func analyse(_ photo: ProcessedPhoto) async throws(AIFailure) -> MealAnalysis

    /// The AI's estimate of a meal described in a sentence.
    func describe(_ sentence: String) async throws(AIFailure) -> MealAnalysis
}

/// Why a phone's photo was not kept, where the photo itself was not at fault.
public enum PageMealsProblem: Error, Sendable {
    /// Less free space than captures need (`storage.min_free_mb`).
    case diskFull
}
