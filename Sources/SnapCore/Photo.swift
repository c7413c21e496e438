import Foundation

/// A capture after the on-device pipeline: the processed JPEG and its thumbnail, both on disk.
public struct ProcessedPhoto: Sendable, Hashable, Codable {
    public var id: PhotoID
    public var photoPath: String
    public var thumbnailPath: String
    public var takenAt: Date
    /// The quality gate's verdict; `.good` when the gate is off.
    public var quality: PhotoQuality
    /// The sticker cut-out (PNG with alpha), when one was made.
    public var stickerPath: String?

    public init(
        id: PhotoID, photoPath: String, thumbnailPath: String, takenAt: Date, quality: PhotoQuality = .good,
        stickerPath: String? = nil
    ) {
        self.id = id
        self.photoPath = photoPath
        self.thumbnailPath = thumbnailPath
        self.takenAt = takenAt
        self.quality = quality
        self.stickerPath = stickerPath
    }
}

/// Whether a photo is worth an analysis or the day's share.
public enum PhotoQuality: String, Sendable, Hashable, Codable {
    case good, tooDark, tooBlurred
}

/// A meal the person kept: the analysis, the photo and the local day it counts for.
public struct Meal: Sendable, Hashable, Codable {
    public var photo: ProcessedPhoto
    public var day: LocalDay
    public var analysis: MealAnalysis
    /// Whose meal it is: the person picked at the station or on the page, the owner where nobody was.
    public var person: PersonID

    public init(photo: ProcessedPhoto, day: LocalDay, analysis: MealAnalysis, person: PersonID = .first) {
        self.photo = photo
        self.day = day
        self.analysis = analysis
        self.person = person
    }
}

/// An analysis that came back while the person was elsewhere (the photo waited for the network, or the
/// station restarted on the result sheet): it is shown for review, saved or discarded, never saved unseen.
public struct MealReview: Sendable, Hashable, Codable {
    public var photo: ProcessedPhoto
    /// The day the meal was eaten, which it counts for when saved.
    public var day: LocalDay
    public var analysis: MealAnalysis
    /// Whose meal it is: the person it was asked for (the mode button on its sheet gives it to another).
    public var person: PersonID

    public init(photo: ProcessedPhoto, day: LocalDay, analysis: MealAnalysis, person: PersonID = .first) {
        self.photo = photo
        self.day = day
        self.analysis = analysis
        self.person = person
    }
}
