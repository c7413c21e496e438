import Foundation
import SnapTestSupport
import SnapText
import Testing

/// The real binary in German and in Spanish, through meal mode and group mode: what each frame says is
/// read from the renderer's own texts (the headless display's `.words` files beside the PNG frames), not
/// from the pixels, and none of it is English. The AI stand-in answers in the language the station asks
/// for, as a model does (Tests/Fakes/openai_api.py).
@Suite("End to end: a station that speaks German or Spanish", .serialized, .startsProcesses)
struct LanguageEndToEndTests {
    let folder = TemporaryDirectory("language-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// The letters-only words of `language`'s catalogs, lowercased: of every text in English's, and of the
    /// texts another language translated (one left as English's adds nothing, so an untranslated text
    /// cannot excuse itself).
    static func vocabulary(_ language: Language) -> Set<String> {
        let english = Catalog.of(.en).entries
        return Catalog.of(language).entries.reduce(into: Set<String>()) { words, pair in
            let (key, entry) = pair
            guard language == .en || entry != english[key] else { return }
            for text in entry.forms {
                // Placeholders are names, not words.
                let plain = text.replacing(/\{[a-z_]+\}/, with: " ")
                words.formUnion(Self.words(in: plain))
            }
        }
    }

    static func words(in text: String) -> [String] {
        text.lowercased().split { !$0.isLetter }.map(String.init).filter { $0.count >= 3 }
    }

    @Test("should show every frame of meal and group mode in the station's language", arguments: [Language.de, .es])
    func noEnglish(language: Language) async throws {
        let words = Words(language)
        let group = words("sample.group")
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\"", "language = \"\(language.rawValue)\"", "name = \"Zuhause\""],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "auto_save_seconds = 30",
                ],
                "group": ["name = \"\(group)\"", "review_seconds = 1"],
                "display": ["idle_seconds = 0"],
            ])
        let log = folder.path + "/station.log"
        let station = try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state"], logPath: log,
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"], typing: true)
        let follower = LogFollower(path: log)
        #expect(await follower.waitFor("screen: ready"), "\(station.output)")
        station.type("press")
        #expect(await follower.waitFor("screen: meal-result"), "\(station.output)")
        station.type("press")  // saved into the jar
        #expect(await follower.waitFor("screen: ready"), "\(station.output)")
        station.type("hold")  // to group mode
        #expect(await follower.waitFor("mode switched to group"), "\(station.output)")
        station.type("press")
        #expect(await follower.waitFor("screen: group-lock"), "\(station.output)")
        #expect(await station.stop() == 0)

        let frames = folder.path + "/state/frames"
        let files = try FileManager.default.contentsOfDirectory(atPath: frames).filter { $0.hasSuffix(".words") }
            .sorted()
        var seen: [String: String] = [:]
        for file in files {
            let screen = String(file.dropFirst(7).dropLast(6))
            seen[screen, default: ""] += try String(contentsOfFile: frames + "/" + file, encoding: .utf8)
        }
        for screen in [
            "ready", "countdown", "capturing", "analysing", "meal-result", "group-review", "sent", "group-lock",
        ] {
            #expect(seen[screen] != nil, "no words written for \(screen): \(seen.keys.sorted())")
        }
        // English's words that the language does not share (kcal, Parmesan, vegan…), nor the names the
        // owner gave (the group, the station).
        let english = Self.vocabulary(.en).subtracting(Self.vocabulary(language)).subtracting(
            Self.words(in: group + " Zuhause"))
        var found: [String] = []
        for (screen, text) in seen.sorted(by: { $0.key < $1.key }) {
            for line in text.split(separator: "\n") where Self.words(in: String(line)).contains(where: english.contains)
            {
                found.append("\(screen): \(line)")
            }
        }
        #expect(found.isEmpty, "English on the \(language.englishName) station:\n\(found.joined(separator: "\n"))")
        // The check reads real words: the AI's answer in the language is on the result screen.
        let title = language == .de ? "Spaghetti mit Tomatensoße" : "Espaguetis con salsa de tomate"
        #expect(seen["meal-result"]?.contains(title) == true, "\(seen["meal-result"] ?? "")")
        #expect(Self.words(in: seen.values.joined()).count > 40)
    }
}
