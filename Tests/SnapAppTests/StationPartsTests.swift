import Foundation
import Logging
import SnapApp
import SnapConfig
import SnapCore
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
        try config.enteredKeys.keep("sk-entered-1234", for: .ai, to: KeyDestination(config.ai.baseURL))
        #expect((Station.makeAnalyzer(config, logger: logger) as? OpenAIAnalyzer)?.settings.key == "sk-entered-1234")
        try "sk-installer-5678\n".write(toFile: folder.path + "/installer-key", atomically: true, encoding: .utf8)
        let installer = (Station.makeAnalyzer(config, logger: logger) as? OpenAIAnalyzer)?.settings.key
        #expect(installer == "sk-installer-5678", "the installer's word first")
    }

    @Test("should send a key only to the address it was entered for, and the installer's only to the config's")
    func keysGoWhereTheyWereEntered() throws {
        var file = StationConfig()
        file.ai.baseURL = "https://api.openai.com/v1"
        file.storage.dir = folder.path + "/bound"
        file.ai.keySource = .file(folder.path + "/bound-installer-key")
        let logger = Logger(label: "test")
        func key(_ address: String) -> String? {
            let config = file.starting(with: RuntimeSettings(aiService: AIService(baseURL: address, model: "m")))
            return (Station.makeAnalyzer(config, logger: logger) as? OpenAIAnalyzer)?.settings.key
        }
        try "sk-installer-5678\n".write(
            toFile: folder.path + "/bound-installer-key", atomically: true, encoding: .utf8)
        #expect(key("https://api.openai.com/v1") == "sk-installer-5678")
        #expect(key("https://api.openai.com:443/v1/") == "sk-installer-5678", "the same destination")
        #expect(
            key("https://attacker.example/v1") == "", "the installer's key never follows an address set on the page")
        try FileManager.default.removeItem(atPath: folder.path + "/bound-installer-key")
        try file.enteredKeys.keep("sk-entered-9999", for: .ai, to: KeyDestination("https://gpu.example.net/v1"))
        #expect(key("https://gpu.example.net/v1") == "sk-entered-9999")
        #expect(key("https://gpu.example.net:8443/v1") == "", "another port is another destination")
        #expect(key("https://attacker.example/v1") == "", "an entered key goes only where it was entered")
        // A key entered before keys had destinations is the address's in force as the station first starts.
        try Data("sk-old-0000\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/bound/keys/ai.key"))
        try FileManager.default.removeItem(atPath: folder.path + "/bound/keys/ai.for")
        file.enteredKeys.bindUnbound(.ai, to: KeyDestination("https://api.openai.com/v1"))
        #expect(key("https://api.openai.com/v1") == "sk-old-0000")
        #expect(key("https://gpu.example.net/v1") == "")
    }

    @Test("should send the broker's password only to its broker, and never in clear beyond the home's network")
    func brokerPassword() throws {
        var config = StationConfig()
        config.storage.dir = folder.path + "/broker"
        func password(_ address: String) -> String? {
            config.brokerPassword(for: MQTTSettings(address: address, username: "station"))
        }
        for address in ["mqtt://broker.example.net", "mqtts://broker.example.net", "mqtt://192.168.1.5"] {
            try config.enteredKeys.keep("pw-\(address)", for: .mqtt, to: KeyDestination(address))
            #expect(password(address) == (address == "mqtt://broker.example.net" ? nil : "pw-\(address)"), "\(address)")
        }
        #expect(password("mqtt://192.168.1.5:1884") == nil, "another port is another broker")
        #expect(password("mqtts://attacker.example") == nil)
        config.mqtt.keySource = .environment("SNAPSTATION_TEST_BROKER_PW")
        config.mqtt.broker = MQTTSettings(address: "mqtt://homeassistant.local", username: "station")
        let environment = ["SNAPSTATION_TEST_BROKER_PW": "installer-pw"]
        #expect(config.key(.mqtt, for: "mqtt://homeassistant.local", environment: environment)?.key == "installer-pw")
        #expect(config.key(.mqtt, for: "mqtt://attacker.example", environment: environment) == nil)
    }
}
