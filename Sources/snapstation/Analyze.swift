import ArgumentParser
import Foundation
import Logging
import SnapApp
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices

extension SnapStation {
    struct Analyze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the configured AI service for a photo's meal macros, and print them as JSON.",
            discussion: """
                The photo goes through the station's pipeline first (turned upright, metadata dropped), then the \
                copy sized for the model is sent. Exit 1 with the reason when the analysis fails; exit 2 when \
                the config is invalid or has no AI key.
                """)

        @Argument(help: "The photo (JPEG).") var photo: String
        @OptionGroup var options: ConfigOption
        @Flag(help: "Send nothing: print the request's size and image tokens, against sending the whole photo.")
        var dryRun = false

        func run() async throws {
            let config = try options.load()
            if dryRun {
                do {
                    return try printCost(config)
                } catch {
                    let message = error is FileError ? "\(error)" : "\(photo): \(error)"
                    FileHandle.standardError.write(Data("snapstation: \(message)\n".utf8))
                    throw ExitCode(1)
                }
            }
            // Standard output carries the JSON; the station's request log lines are not wanted here.
            let quiet = Logger(label: "snapstation", factory: { _ in SwiftLogNoOpLogHandler() })
            guard let analyzer = Station.makeAnalyzer(config, logger: quiet) else {
                FileHandle.standardError.write(
                    Data("snapstation: AI service not configured: no key at \(config.ai.keySource)\n".utf8))
                throw ExitCode(2)
            }
            do {
                let processed = try PhotoPipeline(maxSide: config.processing.maxSize).process(
                    jpeg: FileBytes.read(photo))
                let meal = try await analyzer.analyse(jpeg: processed.photo, dietary: config.ai.dietary)
                print(Self.json(meal, preferences: Set(config.ai.dietary)))
            } catch let failure as AIFailure {
                FileHandle.standardError.write(Data("snapstation: \(failure.message) (\(failure))\n".utf8))
                throw ExitCode(1)
            } catch {
                FileHandle.standardError.write(Data("snapstation: \(photo): \(error)\n".utf8))
                throw ExitCode(1)
            }
        }

        /// What one analysis sends and costs at the configured detail, at high detail, and if the whole
        /// processed photo were sent instead of the copy sized for the model.
        func printCost(_ config: StationConfig) throws {
            let processed = try PhotoPipeline(maxSide: config.processing.maxSize).process(jpeg: FileBytes.read(photo))
            let analyzer = OpenAIAnalyzer(
                settings: OpenAIAnalyzer.Settings(
                    baseURL: config.ai.baseURL, model: config.ai.model,
                    detail: config.ai.detail, key: "dry-run",
                    dietary: config.ai.dietary),
                client: HTTPClient(), logger: Logger(label: "dry-run", factory: { _ in SwiftLogNoOpLogHandler() }))
            let rates = AIImage.TokenRates.forModel(config.ai.model)
            print("model \(config.ai.model): \(rates.base) tokens an image + \(rates.perTile) a 512-px tile")
            print("photo \(processed.width)x\(processed.height), \(processed.photo.count) bytes as processed")
            print(
                "sending".padding(toLength: 34, withPad: " ", startingAt: 0)
                    + "image       image bytes  body bytes  image tokens")
            var rows: [(String, [UInt8], AIImage.Detail)] = []
            for detail in [analyzer.settings.detail, analyzer.settings.detail == .low ? .high : .low] {
                rows.append(
                    (
                        "\(detail.rawValue) detail (sized for the model)",
                        try AIImage.jpeg(from: processed.photo, detail: detail), detail
                    ))
            }
            rows.append(("the whole photo (read as high)", processed.photo, .high))
            for (name, image, detail) in rows {
                let (width, height) = try JPEG.size(of: image)
                let body = analyzer.requestBody(image: image, detail: detail)
                let tokens = AIImage.tokens(width: width, height: height, detail: detail, rates: rates)
                print(
                    name.padding(toLength: 34, withPad: " ", startingAt: 0)
                        + "\(width)x\(height)".padding(toLength: 12, withPad: " ", startingAt: 0)
                        + String(format: "%11d %11d %13d", image.count, body.count, tokens))
            }
        }

        /// The analysis as JSON, with each item's clashes with the configured dietary preferences.
        static func json(_ meal: MealAnalysis, preferences: Set<DietaryPreference>) -> String {
            let items: [[String: Any]] = meal.items.map { item in
                [
                    "name": item.name, "grams": item.grams, "calories": item.macros.calories,
                    "protein": item.macros.protein, "carbs": item.macros.carbs, "fats": item.macros.fats,
                    "contains": item.contains.map(\.rawValue).sorted(),
                    "clashes": DietaryPreference.clashes(of: item, with: preferences).map(\.rawValue),
                ]
            }
            let object: [String: Any] = [
                "title": meal.title, "calories": meal.totals.calories, "protein": meal.totals.protein,
                "carbs": meal.totals.carbs, "fats": meal.totals.fats, "items": items,
            ]
            let data =
                (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
