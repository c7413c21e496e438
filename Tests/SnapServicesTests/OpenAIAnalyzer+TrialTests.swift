import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

@testable import SnapServices

/// The page's try of the AI service (`OpenAIAnalyzer.tryService`): one `GET /models`, against the OpenAI
/// stand-in (Tests/Fakes/openai_api.py `list_models`, held to the official SDK's `models.list()` by
/// Tests/AI/check_openai_sdk.py).
@Suite("OpenAIAnalyzer: the AI service tried at once", .serialized, .startsProcesses)
struct OpenAIAnalyzerTrialTests {
    let fake: FakeServices
    let log = CapturedLog()

    init() async throws { fake = try await FakeServices() }

    private func trial(key: String, model: String = "gpt-4o-mini", baseURL: String? = nil) async -> AIServiceTrial {
        await OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: baseURL ?? fake.baseURL + "/v1", model: model, key: key),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(5)), logger: log.logger
        ).tryService()
    }

    @Test("should say it works and offers the model, or which it offers instead")
    func works() async {
        guard case .works(let model, let offered, let others) = await trial(key: "test-key") else {
            Issue.record("no answer")
            return
        }
        #expect(model == "gpt-4o-mini" && offered, "\(others)")
        #expect(others == ["gpt-4.1-mini", "gpt-4o", "gpt-5", "gpt-5-mini", "o4-mini"], "the others, sorted")
        let missing = await trial(key: "test-key", model: "gpt-9")
        #expect(
            missing
                == .works(
                    model: "gpt-9", offered: false,
                    others: ["gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "gpt-5", "gpt-5-mini"]))
    }

    @Test("should show a refused key in the service's own words, the key masked")
    func refusedKey() async {
        let key = "sk-proj-WRONGKEY0000000000abcd"
        guard case .refused(let status, let words) = await trial(key: key) else {
            Issue.record("a wrong key was not refused")
            return
        }
        #expect(status == 401 && words.hasPrefix("Incorrect API key provided: sk-"), "\(words)")
        #expect(!words.contains(key) && !log.all.joined().contains(key), "never the whole key")
        guard case .refused(401, let none) = await trial(key: "") else {
            Issue.record("no key was not refused")
            return
        }
        #expect(none.hasPrefix("You didn't provide an API key."), "\(none)")
    }

    @Test("should say offline where nothing answers, and unreadable where a page is not a list")
    func unreachable() async {
        #expect(await trial(key: "test-key", baseURL: "http://127.0.0.1:1/v1") == .failed(.offline))
        // The stand-in's own 404 page for a path it lacks: not a list of models, and not OpenAI's error body.
        guard case .refused(404, _) = await trial(key: "test-key", baseURL: fake.baseURL + "/nothing") else {
            Issue.record("a 404 was not a refusal")
            return
        }
    }

    @Test("should read a local server's list as llama.cpp's and Ollama's /v1/models give it")
    func localServers() {
        // llama.cpp's server: the loaded model (its alias or file name), owned by "llamacpp", beside a
        // "models" array of its own; Ollama: each model pulled, "library"-owned.
        let llama = HTTPResponse(
            status: 200, headers: [:],
            body: Array(
                #"{"models":[{"name":"qwen2.5-vl.gguf"}],"object":"list","data":[{"id":"qwen2.5-vl.gguf","object":"model","created":1,"owned_by":"llamacpp","meta":{"n_ctx_train":32768}}]}"#
                    .utf8))
        #expect(
            OpenAIAnalyzer.trial(llama, model: "qwen2.5-vl.gguf", key: "")
                == .works(model: "qwen2.5-vl.gguf", offered: true, others: []))
        let ollama = HTTPResponse(
            status: 200, headers: [:],
            body: Array(
                #"{"object":"list","data":[{"id":"llava:7b","object":"model","created":1,"owned_by":"library"}]}"#.utf8)
        )
        #expect(
            OpenAIAnalyzer.trial(ollama, model: "gpt-4o-mini", key: "")
                == .works(model: "gpt-4o-mini", offered: false, others: ["llava:7b"]))
        let garbage = HTTPResponse(status: 200, headers: [:], body: Array("<html>a router's login page</html>".utf8))
        guard case .failed(.malformedAnswer) = OpenAIAnalyzer.trial(garbage, model: "m", key: "") else {
            Issue.record("a login page was read as a list")
            return
        }
    }
}
