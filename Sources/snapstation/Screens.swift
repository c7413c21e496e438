import ArgumentParser
import Foundation
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapJar
import SnapScreens
import SnapText

extension SnapStation {
    struct Screens: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw every screen with sample data, one PNG each.")

        @Option(help: "The display size, WIDTHxHEIGHT (portrait when taller than wide).") var size = "800x480"
        @Option(help: "The folder for the PNG files.") var out = "screens"
        @Option(help: "The language of the screens: \(Language.codes.joined(separator: ", ")).") var language = "en"

        func run() throws {
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, (160...7680).contains(parts[0]), (160...7680).contains(parts[1]) else {
                throw ValidationError("--size must be WIDTHxHEIGHT, such as 800x480")
            }
            let (width, height) = (parts[0], parts[1])
            guard let language = Language(rawValue: language) else {
                throw ValidationError("--language must be one of \(Language.codes.joined(separator: ", "))")
            }
            let words = Words(language)
            try AtomicFile.createFolder(out)
            // The sample photo is the simulated camera's scene, processed as the station would.
            let scene = TestScene.frame(width: 2028, height: 1520, seconds: 0, label: words("sample.photo"))
            let output = try PhotoPipeline().process(scene)
            let photoPath = out + "/sample-photo.jpg"
            let thumbnailPath = out + "/sample-thumb.jpg"
            try AtomicFile.write(output.photo, to: photoPath)
            try AtomicFile.write(output.thumbnail, to: thumbnailPath)
            let photo = ProcessedPhoto(
                id: PhotoID("sample"), photoPath: photoPath, thumbnailPath: thumbnailPath, takenAt: Date())
            let table = TestScene.frame(width: 2028, height: 1520, seconds: 0, label: "", plate: false)
            let stickerPath = out + "/sample-sticker.png"
            let sticker = try StickerMaker().make(photo: scene, reference: table)
            try AtomicFile.write(PNG.encode(withAlpha: sticker), to: stickerPath)
            let preview = TestScene.frame(width: width, height: height, seconds: 0, label: words("sample.preview"))
            let renderer = ScreenRenderer(images: .disk(capture: { _ in scene }), words: words)
            let canvas = Canvas(width: width, height: height)
            let screens = ScreenGallery.screens(photo: photo, sticker: stickerPath, words: words)
            for (name, screen) in screens {
                // The jar's stickers where the physics leaves them, settled.
                let jar = screen.jar.map { contents in
                    let animator = JarAnimator(seed: 7)
                    animator.sync(contents, bounds: canvas.bounds)
                    animator.settle(limit: 20_000)
                    return animator.frame
                }
                renderer.draw(screen, preview: preview, jar: jar, on: canvas)
                try canvas.writePNG(to: "\(out)/\(name).png")
            }
            print("wrote \(screens.count) screens at \(width)x\(height) in \(language.englishName) to \(out)")
        }
    }
}
