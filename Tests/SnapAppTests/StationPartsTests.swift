import Foundation
import Logging
import SnapApp
import SnapConfig
import SnapServices
import SnapTestSupport
import Testing

@Suite("The station's parts as the config chooses them")
struct StationPartsTests {
    let folder = TemporaryDirectory("parts")

    private func analyzer(baseURL: String, key: String?) throws -> OpenAIAnalyzer? {
        var config = StationConfig()
        config.ai.baseURL = baseURL
        let path = folder.path + "/key"
        try (key ?? "").write(toFile: path, atomically: true, encoding: .utf8)
        config.ai.keySource = .file(path)
        return Station.makeAnalyzer(config, logger: Logger(label: "test")) as? OpenAIAnalyzer
    }

    @Test(
        "should need a key for OpenAI's API, call another server without one, and never send one over plain http on the LAN"
    )
    func aiKeys() throws {
        #expect(try analyzer(baseURL: "https://api.openai.com/v1", key: nil) == nil, "OpenAI needs a key")
        #expect(try analyzer(baseURL: "https://api.openai.com/v1", key: "sk-1")?.settings.key == "sk-1")
        #expect(try analyzer(baseURL: "http://127.0.0.1:11434/v1", key: nil)?.settings.key == "", "Ollama needs none")
        #expect(try analyzer(baseURL: "http://127.0.0.1:8080/v1", key: "sk-1")?.settings.key == "sk-1", "this machine")
        #expect(
            try analyzer(baseURL: "http://192.168.1.20:11434/v1", key: "sk-1")?.settings.key == "",
            "the key never crosses the LAN in clear text")
        #expect(try analyzer(baseURL: "https://gpu.example.net/v1", key: "sk-1")?.settings.key == "sk-1")
    }

    @Test("should call the AI with the key entered on the page, unless the config's key_source finds one")
    func enteredKey() throws {
        var config = StationConfig()
        config.ai.baseURL = "https://api.openai.com/v1"
        config.storage.dir = folder.path
        config.ai.keySource = .file(folder.path + "/installer-key")
        let logger = Logger(label: "test")
        #expect(Station.makeAnalyzer(config, logger: logger) == nil, "no key anywhere: not configured")
        try config.enteredKeys.keep("sk-entered-1234", for: .ai)
        #expect((Station.makeAnalyzer(config, logger: logger) as? OpenAIAnalyzer)?.settings.key == "sk-entered-1234")
        try "sk-installer-5678\n".write(toFile: folder.path + "/installer-key", atomically: true, encoding: .utf8)
        let installer = (Station.makeAnalyzer(config, logger: logger) as? OpenAIAnalyzer)?.settings.key
        #expect(installer == "sk-installer-5678", "the installer's word first")
    }
}
