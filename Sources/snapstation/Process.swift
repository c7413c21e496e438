import ArgumentParser
import Foundation
import SnapCore
import SnapFiles
import SnapImaging

extension SnapStation {
    struct Process: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the station's photo pipeline on a JPEG file.",
            discussion: """
                The same pipeline every capture goes through: EXIF orientation (then --rotation and the flips) \
                applied, resized so the longest side is at most --max, filtered, re-encoded with no metadata at \
                all. Exit 1 with the reason on a file that cannot be read or decoded.
                """)

        @Argument(help: "The JPEG to process.") var input: String
        @Option(name: .shortAndLong, help: "Where the processed JPEG goes.") var output: String
        @Option(help: "The longest side of the output, in pixels.") var max = 2048
        @Option(help: "JPEG quality, 1-100.") var quality = 80
        @Option(help: "sepia, mono, vivid, vignette or sharpen.") var filter: String?
        @Option(help: "How strongly the filter applies, 0-1.") var intensity = 1.0
        @Option(help: "A JPEG of the empty scene: cut the subject out as a sticker.") var stickerReference: String?
        @Option(help: "Where the sticker PNG goes (default: OUTPUT with -sticker.png).") var sticker: String?
        @Option(help: "Where a thumbnail JPEG goes.") var thumbnail: String?
        @Option(help: "The thumbnail's longest side.") var thumbnailSize = 320
        @Flag(help: "Decode at least --max pixels wide (no 2 % DCT tolerance), as vipsthumbnail does.")
        var strictMax = false
        @Option(help: "Turn clockwise by 0, 90, 180 or 270 degrees after the EXIF turn, as camera.rotation does.")
        var rotation = 0
        @Flag(help: "Mirror left to right after the rotation, as camera.hflip does.") var hflip = false
        @Flag(help: "Flip upside down after the rotation, as camera.vflip does.") var vflip = false
        @Flag(help: "Print the size, bytes and the quality gate's measurements.") var verbose = false

        func validate() throws {
            guard (1...100).contains(quality) else { throw ValidationError("--quality must be from 1 to 100") }
            guard (16...16384).contains(max) else { throw ValidationError("--max must be from 16 to 16384") }
            guard (0...1).contains(intensity) else { throw ValidationError("--intensity must be from 0 to 1") }
            guard [0, 90, 180, 270].contains(rotation) else {
                throw ValidationError("--rotation must be 0, 90, 180 or 270")
            }
            if let filter, PhotoFilter(rawValue: filter) == nil {
                throw ValidationError(
                    "--filter must be one of " + PhotoFilter.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }

        func run() throws {
            do {
                let reference = try stickerReference.map { path in
                    try JPEG.decode(Self.read(path), minimumLongestSide: 384)
                }
                var pipeline = PhotoPipeline(
                    orientation: Orientation(quarterTurns: rotation / 90, mirrored: hflip, flipped: vflip),
                    maxSide: max, quality: quality, thumbnailSide: thumbnailSize,
                    filter: filter.flatMap(PhotoFilter.init),
                    intensity: intensity, gate: QualityGate(minBrightness: 0, minSharpness: 0),
                    sticker: reference == nil ? nil : StickerMaker())
                if strictMax { pipeline.dctTolerance = 1 }
                let result = try FileBytes.withMapped(input) { jpeg in
                    Result { () throws(ImagingError) in try pipeline.process(jpeg: jpeg, reference: reference) }
                }.get()
                for warning in result.decodeWarnings {
                    FileHandle.standardError.write(Data("snapstation: \(input): warning: \(warning)\n".utf8))
                }
                try AtomicFile.write(result.photo, to: output)
                if let thumbnail { try AtomicFile.write(result.thumbnail, to: thumbnail) }
                if let png = result.sticker {
                    try AtomicFile.write(
                        png,
                        to: sticker ?? (output.hasSuffix(".jpg") ? String(output.dropLast(4)) : output) + "-sticker.png"
                    )
                } else if let problem = result.stickerProblem {
                    FileHandle.standardError.write(Data("snapstation: no sticker: \(problem)\n".utf8))
                }
                if verbose, let measured = result.measurement {
                    print(
                        "\(output): \(result.width)x\(result.height), \(result.photo.count) bytes; brightness "
                            + String(format: "%.2f, sharpness %.0f", measured.brightness, measured.sharpness))
                }
            } catch {
                let message = error is FileError ? "\(error)" : "\(input): \(error)"
                FileHandle.standardError.write(Data("snapstation: \(message)\n".utf8))
                throw ExitCode(1)
            }
        }

        static func read(_ path: String) throws -> [UInt8] {
            try FileBytes.read(path)
        }
    }
}
