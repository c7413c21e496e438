import Foundation
import SnapCore
import SnapFiles

extension OpenAIAnalyzer {
    /// Tries the service with one small request that costs nothing: `GET {base_url}/models`, which every
    /// service the station speaks to answers — OpenAI (openai/openai-openapi, `listModels`: a
    /// `ListModelsResponse` of `Model` objects, `{"object": "list", "data": [{"id", "object", "created",
    /// "owned_by"}]}`, 401 `invalid_api_key` for a wrong key), llama.cpp's server (tools/server, its
    /// `/v1/models`: the loaded model; 401 "Invalid API Key" with `--api-key`) and Ollama (its OpenAI
    /// compatibility, `/v1/models`: the models pulled). It checks the address, the key and whether the
    /// model the station asks for is offered, before a meal depends on them.
    public func tryService() async -> AIServiceTrial {
        var headers: [(name: String, value: String)] = []
        if !settings.key.isEmpty { headers.append((name: "Authorization", value: "Bearer \(settings.key)")) }
        let request = HTTPRequest(
            method: "GET", url: settings.baseURL.trimmingSuffix("/") + "/models", headers: headers,
            maxBodyBytes: Self.maxAnswerBytes)
        let started = clock.uptime
        let trial: AIServiceTrial
        do {
            let response = try await client.send(request)
            trial = Self.trial(response, model: settings.model, key: settings.key)
        } catch {
            trial = .failed(Self.failure(error))
        }
        logger.info(
            "AI service tried",
            metadata: [
                "ms": "\(Int((clock.uptime - started).seconds * 1000))", "model": "\(settings.model)",
                "result": "\(trial)",
            ])
        return trial
    }

    /// What the list's answer says.
    static func trial(_ response: HTTPResponse, model: String, key: String) -> AIServiceTrial {
        struct Models: Decodable {
            struct Model: Decodable { var id: String }
            var data: [Model]
        }
        struct Refusal: Decodable {
            struct Detail: Decodable { var message: String? }
            var error: Detail?
        }
        guard response.status == 200 else {
            let message = (try? JSONDecoder().decode(Refusal.self, from: Data(response.body)))?.error?.message
            return .refused(
                status: response.status, words: serviceWords(message, status: response.status, key: key))
        }
        guard let models = try? JSONDecoder().decode(Models.self, from: Data(response.body)) else {
            return .failed(.malformedAnswer("its list of models could not be read"))
        }
        let ids = models.data.map(\.id)
        // A name of at most 100 characters on one line: what the page shows of each.
        let others = ids.filter { $0 != model }.sorted().prefix(5).map { serviceWords($0, status: 200, key: key) }
        return .works(model: model, offered: ids.contains(model), others: Array(others))
    }
}
