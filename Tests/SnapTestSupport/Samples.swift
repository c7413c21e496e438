import Foundation
import SnapCore

/// Sample values shared by the tests and by `snapstation screens`.
public enum Samples {
    public static let berlin = TimeZone(identifier: "Europe/Berlin")!

    public static func photo(_ id: String = "p1", at date: Date = Date(timeIntervalSince1970: 1_790_000_000))
        -> ProcessedPhoto
    {
        ProcessedPhoto(
            id: PhotoID(id), photoPath: "/tmp/\(id).jpg", thumbnailPath: "/tmp/\(id)-thumb.jpg", takenAt: date)
    }
}
