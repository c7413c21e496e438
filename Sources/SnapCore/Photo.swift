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

    public init(photo: ProcessedPhoto, day: LocalDay, analysis: MealAnalysis) {
        self.photo = photo
        self.day = day
        self.analysis = analysis
    }
}

/// An analysis that came back while the person was elsewhere (the photo waited for the network, or the
/// station restarted on the result sheet): it is shown for review, saved or discarded, never saved unseen.
public struct MealReview: Sendable, Hashable, Codable {
    public var photo: ProcessedPhoto
    /// The day the meal was eaten, which it counts for when saved.
    public var day: LocalDay
    public var analysis: MealAnalysis

    public init(photo: ProcessedPhoto, day: LocalDay, analysis: MealAnalysis) {
        self.photo = photo
        self.day = day
        self.analysis = analysis
    }
}

extension PhotoID {
    /// `YYYYMMDD-HHMMSS-xxxx` in local time: sortable, readable in a file list, and unique in practice.
    public static func new(at date: Date, in timeZone: TimeZone) -> PhotoID {
        let parts = Calendar.gregorian(in: timeZone).dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(
            format: "%04d%02d%02d-%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
        return PhotoID("\(stamp)-\(String(UInt16.random(in: 0...UInt16.max), radix: 16))")
    }
}
