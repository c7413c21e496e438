import Foundation
import Logging
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapStore

/// The station's parsers of untrusted bytes, each as one function a fuzzer can feed: anything may go in,
/// and each must come back with a value or its own error: never a crash, a hang or a runaway allocation.
enum FuzzTarget: String, CaseIterable {
    /// The config file: toml++ through the C++ shim, then the reader that checks every key.
    case config
    /// An AI service's chat-completion answer: JSON, the meal schema, the bounds.
    case aiAnswer = "ai-answer"
    /// A JPEG: its structure (scans), the guarded decode, EXIF orientation, the whole photo pipeline.
    case jpeg
    /// A Supabase listing (PostgREST JSON) and an HTTP response's header block; every photo that comes
    /// out holds only what the edge lets through.
    case supabase
    /// The CSV export: any titles and names, written with either separator and read back as RFC 4180
    /// reads them, come back cell for cell, none a formula.
    case csv
    /// A restored backup's store: any rows in any of the station's tables (`RestoreCheck`), rebuilt as a
    /// restore rebuilds them and read as the station reads them; every file a row leads to is one of the
    /// photos' or the inbox's, and no session comes with them.
    case restore

    func run(_ bytes: [UInt8]) {
        switch self {
        case .config:
            _ = try? StationConfig(parsing: String(decoding: bytes, as: UTF8.self), file: "fuzz.toml")
        case .aiAnswer:
            _ = try? OpenAIAnalyzer.decode(bytes)
        case .jpeg:
            _ = JPEGStructure(bytes)
            _ = EXIF.orientation(of: bytes)
            _ = try? JPEG.decode(bytes, minimumLongestSide: 64, warnings: JPEGWarnings())
            _ = try? PhotoPipeline(maxSide: 128, thumbnailSide: 64).process(jpeg: bytes)
        case .supabase:
            for item in (try? SupabaseBackend.sharedItems(from: bytes, group: "Fuzz", logger: quiet)) ?? [] {
                precondition(PhotoID(parsing: item.photoID.rawValue) != nil, "an id that is no PhotoID got through")
                precondition(item.group == "Fuzz", "the row named the group")
                precondition(
                    item.location.split(separator: "/", omittingEmptySubsequences: false)
                        .allSatisfy { FileName(String($0)) != nil },
                    "an object path that is not plain names got through: \(item.location)")
                precondition(item.member == item.member.printable(limit: 60), "a member's name not cleaned")
            }
            _ = HTTPClient.parseHeaders(String(decoding: bytes, as: UTF8.self))
        case .csv:
            CSVCheck.roundTrip(bytes)
        case .restore:
            RestoreCheck.rebuild(bytes)
        }
    }
}

private let quiet = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
