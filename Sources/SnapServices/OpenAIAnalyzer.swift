import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapImaging
import SnapText

/// Meal analysis through an OpenAI-compatible chat-completions endpoint (OpenAI, or a local server).
///
/// The photo goes as a `data:image/jpeg;base64,…` URL, sized for the model's `detail`, and the answer is
/// forced into `MealSchema` with a strict `json_schema` response format. The request is one that every
/// current OpenAI chat model and llama.cpp, Ollama and vLLM accept (docs/ai-service.md): no sampling
/// parameters, `max_completion_tokens` only to OpenAI. Each answer is read as the service sent it: the
/// error body's `code` names the failure (`AIFailure`), permanent ones are not retried, server errors and
/// broken connections are retried a bounded number of times with exponential backoff and jitter, and a
/// rate limit after the wait the service named (`retry-after-ms`, `retry-after`, `x-ratelimit-reset-*`)
/// when that is short. A timeout is not retried here: the person's time budget and the delayed queue
/// decide what follows. The key goes only into the Authorization header: never into a log line or an
/// error message; a local server may need none.
public struct OpenAIAnalyzer: MealAnalyzer {
    public struct Settings: Sendable {
        public var baseURL: String
        public var model: String
        public var detail: AIImage.Detail
        /// The API key; empty for a local server that needs none (no Authorization header is sent).
        public var key: String
        public var dietary: [DietaryPreference]
        public var attempts: Int
        /// The first retry's wait; each further retry doubles it (±50 % jitter).
        public var retryBase: Duration
        /// A `Retry-After` longer than this is shown to the person instead of waited out.
        public var longestWait: Duration

        public init(
            baseURL: String, model: String = "gpt-4o-mini", detail: AIImage.Detail = .low, key: String,
            dietary: [DietaryPreference] = [], attempts: Int = 3, retryBase: Duration = .seconds(1),
            longestWait: Duration = .seconds(20)
        ) {
            self.baseURL = baseURL
            self.model = model
            self.detail = detail
            self.key = key
            self.dietary = dietary
            self.attempts = attempts
            self.retryBase = retryBase
            self.longestWait = longestWait
        }
    }

    public let settings: Settings
    let client: HTTPClient
    let logger: Logger
    /// The time its retries wait on and a dated `Retry-After` is read against.
    let clock: any ShellClock

    public init(settings: Settings, client: HTTPClient, logger: Logger, clock: any ShellClock = SystemClock()) {
        self.settings = settings
        self.client = client
        self.logger = logger
        self.clock = clock
    }

    /// The largest answer read: a meal of 50 items is a few kilobytes; anything near this is not a meal.
    static let maxAnswerBytes = 1 << 20

    /// The answer's cap in tokens, sent to OpenAI only: 16,384 is the most gpt-4o and gpt-4o-mini may
    /// write (gpt-4.1 and gpt-5 allow more), and gpt-5-class reasoning spends from the same cap. A meal
    /// item is about 40 tokens and an ingredient 15, so ten items of ten ingredients are about 2,000: the
    /// cap is never what limits a real meal, while 1,000 (before) cut off long ones. A local server is
    /// sent none: vLLM refuses a cap beyond the model's context, llama.cpp stops at the answer's end, and
    /// Ollama does not read the key at all (docs/ai-service.md).
    static let openAIAnswerTokens = 16_384

    /// Whether the base URL is OpenAI's own API (the key is required there, and the token cap is sent).
    public var isOpenAI: Bool {
        URL(string: settings.baseURL)?.host?.lowercased() == "api.openai.com"
    }

    /// Analyses with the configured dietary preferences (`settings.dietary`).
    public func analyse(jpeg: [UInt8]) async throws(AIFailure) -> MealAnalysis {
        try await analyse(jpeg: jpeg, dietary: settings.dietary)
    }

    public func analyse(jpeg: [UInt8], dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealAnalysis
    {
        try await ask(jpeg: jpeg, dietary: dietary, language: language, correction: nil)
    }

    /// The same request with the first answer as the model's turn, and the person's sentence after it: the
    /// model answers again in the same schema, as a chat would go on.
    public func correct(
        jpeg: [UInt8], first: MealAnalysis, sentence: String, dietary: [DietaryPreference], language: Language
    ) async throws(AIFailure) -> MealAnalysis {
        try await ask(jpeg: jpeg, dietary: dietary, language: language, correction: (first, sentence))
    }

    private func ask(
        jpeg: [UInt8], dietary: [DietaryPreference], language: Language,
        correction: (first: MealAnalysis, sentence: String)?
    ) async throws(AIFailure) -> MealAnalysis {
        let image: [UInt8]
        do {
            image = try AIImage.jpeg(from: jpeg, detail: settings.detail)
        } catch {
            throw .badPhoto("\(error)")
        }
        return try await send(
            requestBody(image: image, dietary: dietary, language: language, correction: correction),
            about: ["detail": "\(settings.detail.rawValue)", "image_bytes": "\(image.count)"], decode: Self.decode)
    }

    /// A meal described in a sentence, asked in text alone: the photo's schema and rules, its answer read
    /// as a photo's is.
    public func describe(_ sentence: String, dietary: [DietaryPreference], language: Language)
        async throws(AIFailure) -> MealAnalysis
    {
        try await send(
            describeBody(sentence, dietary: dietary, language: language),
            about: ["described": "\(sentence.count) characters"], decode: Self.decode)
    }

    /// What a planned meal needs, asked in text alone (no photo): the same service, its own schema.
    public func plan(_ request: PlanRequest, dietary: [DietaryPreference], language: Language)
        async throws(AIFailure) -> MealPlan
    {
        let units = request.units
        return try await send(
            planBody(request, dietary: dietary, language: language), about: ["plan": "\(request.units.rawValue)"]
        ) { body throws(AIFailure) in try Self.decodePlan(body, units: units) }
    }

    /// One request to chat completions with its retries (`about` goes into its log line), its answer read
    /// by `decode`.
    private func send<Answer>(
        _ body: [UInt8], about: Logger.Metadata, decode: ([UInt8]) throws(AIFailure) -> Answer
    ) async throws(AIFailure) -> Answer {
        var headers = [(name: "Content-Type", value: "application/json")]
        if !settings.key.isEmpty { headers.append((name: "Authorization", value: "Bearer \(settings.key)")) }
        let request = HTTPRequest(
            method: "POST", url: settings.baseURL.trimmingSuffix("/") + "/chat/completions", headers: headers,
            body: body, maxBodyBytes: Self.maxAnswerBytes)
        var attempt = 1
        while true {
            let started = clock.uptime
            let outcome = await exchange(request, decode: decode)
            var metadata = about
            metadata["attempt"] = "\(attempt)"
            metadata["model"] = "\(settings.model)"
            metadata["body_bytes"] = "\(body.count)"
            metadata["ms"] = "\(Int((clock.uptime - started).seconds * 1000))"
            metadata["result"] = "\(outcome.logText)"
            logger.info("AI request", metadata: metadata)
            switch outcome {
            case .answer(let answer):
                return answer
            case .failure(let failure):
                throw failure
            case .retry(let failure, let wait):
                guard attempt < settings.attempts, !Task.isCancelled else { throw failure }
                if let wait, wait > settings.longestWait { throw failure }
                let delay = wait ?? backoff(attempt)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw failure
                }
                attempt += 1
            }
        }
    }

    /// One request's meaning for the retry loop.
    private enum Outcome<Answer> {
        case answer(Answer)
        case failure(AIFailure)
        /// Worth another try, after `wait` if the service said how long.
        case retry(AIFailure, wait: Duration?)

        var logText: String {
            switch self {
            case .answer: "ok"
            case .failure(let failure): "\(failure)"
            case .retry(let failure, _): "\(failure), will retry"
            }
        }
    }

    private func exchange<Answer>(_ request: HTTPRequest, decode: ([UInt8]) throws(AIFailure) -> Answer) async
        -> Outcome<Answer>
    {
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            let failure = Self.failure(error)
            return failure == .connectionLost ? .retry(failure, wait: nil) : .failure(failure)
        }
        if response.status == 200 {
            do {
                return .answer(try decode(response.body))
            } catch {
                return .failure(error)
            }
        }
        let failure = Self.failure(
            status: response.status, body: response.body, model: settings.model, key: settings.key,
            header: response.header, now: clock.wall)
        guard failure.isTransient else { return .failure(failure) }
        if case .rateLimited(let after) = failure { return .retry(failure, wait: after) }
        return .retry(failure, wait: nil)
    }

    /// What a request that got no answer means (a broken connection is worth a retry).
    static func failure(_ error: HTTPError) -> AIFailure {
        switch error.kind {
        case .unreachable: .offline
        case .timedOut, .cancelled: .timedOut
        case .connectionLost, .other: .connectionLost
        case .tls: .untrusted(error.message)
        case .bodyTooLarge: .malformedAnswer(error.message)
        }
    }

    /// What a non-200 answer means, from its status, its error body (`{"error": {"message", "type",
    /// "param", "code"}}`; llama.cpp's `code` is a number) and, for a 429, its headers. docs/ai-service.md
    /// lists each class with the source it was read from.
    static func failure(
        status: Int, body: [UInt8], model: String, key: String, header: (String) -> String?, now: Date
    ) -> AIFailure {
        struct Envelope: Decodable {
            struct Detail: Decodable {
                var message: String?
                var type: String?
                var code: String?

                enum CodingKeys: String, CodingKey { case message, type, code }

                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    message = try? container.decodeIfPresent(String.self, forKey: .message)
                    type = try? container.decodeIfPresent(String.self, forKey: .type)
                    code =
                        (try? container.decodeIfPresent(String.self, forKey: .code))
                        ?? (try? container.decodeIfPresent(Int.self, forKey: .code)).flatMap { $0.map(String.init) }
                }
            }
            var error: Detail?
        }
        let detail = (try? JSONDecoder().decode(Envelope.self, from: Data(body)))?.error
        let code = detail?.code ?? ""
        let words = serviceWords(detail?.message, status: status, key: key)
        switch status {
        case 400 where ["image_parse_error", "invalid_image_format", "invalid_image"].contains(code):
            return .photoUnreadable
        case 401:
            return .unauthorized
        case 403 where code == "unsupported_country_region_territory":
            return .regionNotSupported
        case 403 where code == "model_not_found", 404 where code == "model_not_found":
            return .modelUnavailable(model)
        case 429 where code == "insufficient_quota" || detail?.type == "insufficient_quota":
            return .noCredit
        case 429:
            return .rateLimited(retryAfter: retryWait(header, now: now))
        // llama.cpp's server without a vision projector (server-common.cpp, oaicompat_chat_params_parse):
        // a 500 that no retry heals.
        case 500 where words.contains("image input is not supported"):
            return .cannotSeeImages
        case 500...599:
            return .serverError(status: status)
        default:
            return .requestRefused(words)
        }
    }

    /// The service's words for the owner, short, on one line, and never the key (OpenAI quotes part of a
    /// wrong one).
    static func serviceWords(_ message: String?, status: Int, key: String) -> String {
        var words = (message ?? "HTTP \(status)").replacingOccurrences(of: "\n", with: " ")
        if !key.isEmpty { words = words.replacingOccurrences(of: key, with: "…") }
        if words.count > 100 { words = String(words.prefix(99)) + "…" }
        return words
    }

    /// How long a 429 says to wait, in the SDK's order (`_base_client.py`, `_parse_retry_after_header`):
    /// `retry-after-ms`, then `retry-after` as (decimal) seconds or an HTTP date; then, which the SDK does
    /// not read but OpenAI sends where it sends neither, the reset of the limit that is spent
    /// (`x-ratelimit-remaining-*` 0, `x-ratelimit-reset-*` such as "20ms", "1s", "6m0s").
    /// `now`: the wall clock a dated `Retry-After` is counted from.
    public static func retryWait(_ header: (String) -> String?, now: Date) -> Duration? {
        if let value = header("retry-after-ms").flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }),
            value.isFinite, value >= 0
        {
            return .milliseconds(Int64(value.rounded(.up)))
        }
        if let after = retryAfter(header("retry-after"), now: now) { return after }
        let resets = ["requests", "tokens"].compactMap { limit -> Duration? in
            guard header("x-ratelimit-remaining-\(limit)")?.trimmingCharacters(in: .whitespaces) == "0" else {
                return nil
            }
            return header("x-ratelimit-reset-\(limit)").flatMap(goDuration)
        }
        return resets.max()
    }

    /// A duration as Go writes it (`time.Duration.String`): "20ms", "1s", "8.64s", "6m0s", "1h2m3.5s".
    static func goDuration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [
            ("h", 3600), ("ms", 0.001), ("us", 0.000_001), ("µs", 0.000_001), ("m", 60), ("s", 1),
        ]
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { return nil }
        var seconds = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            guard let (unit, scale) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.count)
            seconds += value * scale
        }
        guard seconds.isFinite, seconds < 86_400 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// `retryBase × 2^(attempt−1)`, ±50 % so that many stations do not retry in step.
    func backoff(_ attempt: Int) -> Duration {
        .seconds(settings.retryBase.seconds * Double(1 << min(attempt - 1, 8)) * Double.random(in: 0.5...1.5))
    }

    /// Seconds (whole, as RFC 9110 has it, or decimal, as the SDK also reads), or an HTTP date.
    public static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds.isFinite {
            return .milliseconds(Int64((max(0, seconds) * 1000).rounded(.up)))
        }
        return InternetDate.http(value).map { .seconds(max(0, $0.timeIntervalSince(now).rounded(.up))) }
    }

    /// The chat completion's message: a refusal, or content that must be the schema's JSON, validated.
    /// (Also what the fuzzer feeds: any bytes in, a meal or `AIFailure` out.)
    public static func decode(_ body: [UInt8]) throws(AIFailure) -> MealAnalysis {
        let answer: MealSchema.Answer
        do {
            answer = try JSONDecoder().decode(MealSchema.Answer.self, from: Data(try content(of: body).utf8))
        } catch let failure as AIFailure {
            throw failure
        } catch {
            throw .malformedAnswer("not the JSON the schema asks for")
        }
        return try MealSchema.validated(answer)
    }

    /// A planned meal's answer, as `decode` reads a meal's: the plan in `units`, validated.
    public static func decodePlan(_ body: [UInt8], units: PlanRequest.Units) throws(AIFailure) -> MealPlan {
        let answer: PlanSchema.Answer
        do {
            answer = try JSONDecoder().decode(PlanSchema.Answer.self, from: Data(try content(of: body).utf8))
        } catch let failure as AIFailure {
            throw failure
        } catch {
            throw .malformedAnswer("not the JSON the schema asks for")
        }
        return try PlanSchema.validated(answer, units: units)
    }

    /// The text a chat completion answered, or why there is none to read: a refusal, an answer cut off, one
    /// the content filter withheld, or no content at all.
    static func content(of body: [UInt8]) throws(AIFailure) -> String {
        struct Completion: Decodable {
            struct Choice: Decodable {
                struct Message: Decodable {
                    var content: String?
                    var refusal: String?
                }
                var message: Message
                var finishReason: String?

                enum CodingKeys: String, CodingKey {
                    case message
                    case finishReason = "finish_reason"
                }
            }
            var choices: [Choice]
        }
        guard let completion = try? JSONDecoder().decode(Completion.self, from: Data(body)),
            let choice = completion.choices.first
        else { throw .malformedAnswer("not a chat completion") }
        if let refusal = choice.message.refusal, !refusal.isEmpty { throw .refused(refusal) }
        if choice.finishReason == "length" { throw .malformedAnswer("the answer was cut off") }
        if choice.finishReason == "content_filter" { throw .refused("withheld by the content filter") }
        guard let content = choice.message.content, !content.isEmpty else {
            throw .refused("an answer with no content")
        }
        return content
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
