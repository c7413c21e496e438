import Foundation
import Logging
import SnapCore
import SnapImaging

/// Meal analysis through an OpenAI-compatible chat-completions endpoint (OpenAI, or a local server).
///
/// The photo goes as a `data:image/jpeg;base64,…` URL, sized for the model's `detail`, and the answer is
/// forced into `MealSchema` with a strict `json_schema` response format. Server errors, timeouts and
/// broken connections are retried a bounded number of times with exponential backoff and jitter; a 429 is
/// retried after its `Retry-After` when that is short. The key goes only into the Authorization header:
/// never into a log line or an error message.
public struct OpenAIAnalyzer: MealAnalyzer {
    public struct Settings: Sendable {
        public var baseURL: String
        public var model: String
        public var detail: AIImage.Detail
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

    public init(settings: Settings, client: HTTPClient, logger: Logger) {
        self.settings = settings
        self.client = client
        self.logger = logger
    }

    /// The largest answer read: a meal of 50 items is a few kilobytes; anything near this is not a meal.
    static let maxAnswerBytes = 1 << 20

    /// Analyses with the configured dietary preferences (`settings.dietary`).
    public func analyse(jpeg: [UInt8]) async throws(AIFailure) -> MealAnalysis {
        try await analyse(jpeg: jpeg, dietary: settings.dietary)
    }

    public func analyse(jpeg: [UInt8], dietary: [DietaryPreference]) async throws(AIFailure) -> MealAnalysis {
        let image: [UInt8]
        do {
            image = try AIImage.jpeg(from: jpeg, detail: settings.detail)
        } catch {
            throw .badPhoto("\(error)")
        }
        let request = HTTPRequest(
            method: "POST", url: settings.baseURL.trimmingSuffix("/") + "/chat/completions",
            headers: [("Authorization", "Bearer \(settings.key)"), ("Content-Type", "application/json")],
            body: requestBody(image: image, dietary: dietary), maxBodyBytes: Self.maxAnswerBytes)
        var attempt = 1
        while true {
            let started = ContinuousClock.now
            let outcome = await exchange(request)
            logger.info(
                "AI request",
                metadata: [
                    "attempt": "\(attempt)", "model": "\(settings.model)", "detail": "\(settings.detail.rawValue)",
                    "image_bytes": "\(image.count)", "body_bytes": "\(request.body?.count ?? 0)",
                    "ms": "\(Int((ContinuousClock.now - started).seconds * 1000))",
                    "result": "\(outcome.logText)",
                ])
            switch outcome {
            case .answer(let analysis):
                return analysis
            case .failure(let failure):
                throw failure
            case .retry(let failure, let wait):
                guard attempt < settings.attempts, !Task.isCancelled else { throw failure }
                let delay = wait ?? backoff(attempt)
                try? await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    /// One request's meaning for the retry loop.
    private enum Outcome {
        case answer(MealAnalysis)
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

    private func exchange(_ request: HTTPRequest) async -> Outcome {
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            switch error.kind {
            case .unreachable: return .failure(.offline)
            case .timedOut: return .retry(.timedOut, wait: nil)
            case .connectionLost, .other: return .retry(.connectionLost, wait: nil)
            case .tls: return .failure(.untrusted(error.message))
            case .cancelled: return .failure(.timedOut)
            case .bodyTooLarge: return .failure(.malformedAnswer(error.message))
            }
        }
        switch response.status {
        case 200:
            do {
                return .answer(try Self.decode(response.body))
            } catch {
                return .failure(error)
            }
        case 401, 403:
            return .failure(.unauthorized)
        case 429:
            let after = Self.retryAfter(response.header("Retry-After"))
            if let after, after <= settings.longestWait { return .retry(.rateLimited(retryAfter: after), wait: after) }
            return .failure(.rateLimited(retryAfter: after))
        case 500...599:
            return .retry(.serverError(status: response.status), wait: nil)
        default:
            return .failure(.serverError(status: response.status))
        }
    }

    /// `retryBase × 2^(attempt−1)`, ±50 % so that many stations do not retry in step.
    func backoff(_ attempt: Int) -> Duration {
        settings.retryBase * (Double(1 << min(attempt - 1, 8)) * Double.random(in: 0.5...1.5))
    }

    /// Seconds, or an HTTP date, as RFC 9110 allows.
    public static func retryAfter(_ value: String?) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        return InternetDate.http(value).map { .seconds(max(0, $0.timeIntervalSinceNow.rounded(.up))) }
    }

    /// The chat-completions request body for `image`, at the configured detail or at `detail`, for a
    /// person who eats `dietary` (the configured preferences when nil).
    public func requestBody(image: [UInt8], detail: AIImage.Detail? = nil, dietary: [DietaryPreference]? = nil)
        -> [UInt8]
    {
        let dietary = dietary ?? settings.dietary
        let tags = FoodTag.allCases.map(\.rawValue).joined(separator: ", ")
        var instructions = """
            You estimate the nutrition of a meal from one photo. Name the meal in a short title. List each \
            item you can see with its weight in grams and its kcal, protein, carbs and fats in grams, rounded \
            to whole numbers; the meal's totals are the sums of the items. For each item, list in "contains" \
            which of these it contains: \(tags). For an item that is a dish made of several ingredients (a \
            sauce, a salad), list them in "ingredients" with the amount each needs in g, ml or pieces, as a \
            shopping list would; leave it empty for a plain food. Add one short, friendly "fun_fact" about the \
            meal, at most 120 characters.
            """
        if !dietary.isEmpty {
            instructions +=
                " The person eats " + dietary.map(\.rawValue).joined(separator: " and ")
                + ": be exact about \"contains\", it is used to warn them."
        }
        let payload: [String: Any] = [
            "model": settings.model,
            "temperature": 0.2,
            "max_tokens": 1000,
            "messages": [
                ["role": "system", "content": instructions],
                [
                    "role": "user",
                    "content": [
                        ["type": "text", "text": "What is in this meal?"],
                        [
                            "type": "image_url",
                            "image_url": [
                                "url": "data:image/jpeg;base64," + Data(image).base64EncodedString(),
                                "detail": (detail ?? settings.detail).rawValue,
                            ],
                        ],
                    ],
                ],
            ],
            "response_format": [
                "type": "json_schema",
                "json_schema": ["name": "meal_macros", "strict": true, "schema": MealSchema.schema],
            ],
        ]
        return [UInt8]((try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data())
    }

    /// The chat completion's message: a refusal, or content that must be the schema's JSON, validated.
    /// (Also what the fuzzer feeds: any bytes in, a meal or `AIFailure` out.)
    public static func decode(_ body: [UInt8]) throws(AIFailure) -> MealAnalysis {
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
        guard let content = choice.message.content else { throw .malformedAnswer("no content") }
        let answer: MealSchema.Answer
        do {
            answer = try JSONDecoder().decode(MealSchema.Answer.self, from: Data(content.utf8))
        } catch {
            throw .malformedAnswer("not the JSON the schema asks for")
        }
        return try MealSchema.validated(answer)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
