import ArgumentParser
import Foundation
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore

/// A known photo the soak writes again and again; the check compares every visible file with it.
enum SoakPhoto {
    static func bytes() throws -> [UInt8] {
        var image = PixelImage(width: 640, height: 480)
        var seed: UInt32 = 12345
        for index in image.pixels.indices {
            seed = seed &* 1_103_515_245 &+ 12345
            image.pixels[index] = UInt8(truncatingIfNeeded: seed >> 16)
        }
        return try JPEG.encode(image, quality: 90)
    }
}

extension SnapStation {
    struct StoreSoak: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store-soak",
            abstract: "Write photos, meals and queue jobs into a state folder until killed (power-cut testing).",
            discussion: "Pull the power or kill -9 it at any moment, then run store-check on the same folder.",
            shouldDisplay: false)

        @Option(help: "The state folder.") var state: String
        @Option(help: "Stop after this many rounds (0 = until killed).") var rounds = 0

        func run() throws {
            let store = try StationStore(directory: state)
            let jpeg = try SoakPhoto.bytes()
            let day = LocalDay(year: 2026, month: 1, day: 1)
            var round = 0
            let parent = getppid()
            while rounds == 0 || round < rounds {
                round += 1
                // A writer whose test went away (its parent died) stops, and so does one that has filled
                // the disk to its last gigabyte: left running, it would write until nothing else can.
                if round % 10 == 0 {
                    if getppid() != parent {
                        print("stopping: the process that started this soak is gone")
                        return
                    }
                    if let free = try? FreeSpace.available(at: state), free < 1 << 30 {
                        print("stopping: less than 1 GB free at \(state)")
                        return
                    }
                }
                let id = PhotoID("soak-\(getpid())-\(round)")
                let paths = store.paths(for: id, day: day)
                let photo = ProcessedPhoto(
                    id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: Date())
                try store.storePhoto(photo, jpeg: jpeg, thumbnail: jpeg)
                let analysis = MealAnalysis(
                    title: "Soak \(round)", totals: Macros(calories: round, protein: 1, carbs: 1, fats: 1),
                    items: [MealItem(name: "item", grams: 1, macros: .zero)])
                try store.saveMeal(Meal(photo: photo, day: day, analysis: analysis))
                try store.recordAIUse(on: day)
                try store.share(photo, group: "soak-\(round)", day: day, now: Date())
                if round % 10 == 0 { print("round \(round)") }
            }
        }
    }

    struct StoreCheck: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store-check",
            abstract: "Check a state folder after a crash: database integrity and that every photo is whole.",
            shouldDisplay: false)

        @Option(help: "The state folder.") var state: String

        func run() throws {
            let store = try StationStore(directory: state)
            let verdict = try store.integrityCheck()
            let expected = try SoakPhoto.bytes()
            var photos = 0
            var broken: [String] = []
            let root = state + "/photos"
            let walker = FileManager.default.enumerator(atPath: root)
            while let relative = walker?.nextObject() as? String {
                guard relative.hasSuffix(".jpg") else { continue }
                photos += 1
                let bytes = FileBytes.readIfPresent(root + "/" + relative)
                if bytes != expected { broken.append(relative) }
            }
            let meals = try store.meals(on: LocalDay(year: 2026, month: 1, day: 1))
            let orphans = meals.filter { !FileManager.default.fileExists(atPath: $0.photo.photoPath) }
            print("integrity: \(verdict)")
            print("photos: \(photos), incomplete: \(broken.count)")
            print("meals: \(meals.count), without their photo: \(orphans.count)")
            guard verdict == "ok", broken.isEmpty, orphans.isEmpty else { throw ExitCode(1) }
        }
    }
}
