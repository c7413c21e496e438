import Foundation

/// Names one capture from the moment the shutter fires; file names and store rows use it.
public struct PhotoID: Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// A capture after the on-device pipeline: the processed JPEG and its thumbnail, both on disk.
public struct ProcessedPhoto: Sendable, Hashable, Codable {
    public var id: PhotoID
    public var photoPath: String
    public var thumbnailPath: String
    public var takenAt: Date

    public init(id: PhotoID, photoPath: String, thumbnailPath: String, takenAt: Date) {
        self.id = id
        self.photoPath = photoPath
        self.thumbnailPath = thumbnailPath
        self.takenAt = takenAt
    }
}

/// A meal the person kept: the analysis, the photo and the local day it counts for.
public struct Meal: Sendable, Hashable, Codable {
    public var photo: ProcessedPhoto
    public var day: LocalDay
    public var analysis: MealAnalysis

    public init(photo: ProcessedPhoto, day: LocalDay, analysis: MealAnalysis) {
        self.photo = photo
        self.day = day
        self.analysis = analysis
    }
}
