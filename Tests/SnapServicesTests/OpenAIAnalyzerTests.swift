import Foundation
import SnapCore
import SnapImaging
import SnapServices
import SnapTestSupport
import SnapText
import Testing

@Suite("OpenAIAnalyzer against a local OpenAI-compatible server", .serialized, .startsProcesses)
struct OpenAIAnalyzerTests {
    let fake: FakeServices
    let log = CapturedLog()
    let photo: [UInt8]

    init() async throws {
        fake = try await FakeServices()
        photo = try JPEG.encode(TestImages.noise(width: 2048, height: 1536), quality: 80)
    }

    /// The analyser's retries wait on `clock`: the test's, which it moves, unless said.
    private func analyzer(
        key: String = "test-key", attempts: Int = 3, timeout: Duration = .seconds(5), clock: HeldClock = HeldClock()
    ) -> OpenAIAnalyzer {
        OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(
                baseURL: fake.baseURL + "/v1/", key: key, dietary: [.vegan], attempts: attempts,
                retryBase: .seconds(2), longestWait: .seconds(20)),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: timeout), logger: log.logger, clock: clock)
    }

    /// Runs `work` while a held clock answers each wait it reaches: the deadline it asked for (the uptime
    /// it slept at, and the wait) is noted, then the clock is moved to it. Returns `work`'s result and the
    /// waits, in order.
    private func waited<Result: Sendable>(
        on clock: HeldClock, waits: Int, _ work: @escaping @Sendable () async -> Result
    ) async -> (Result, [Duration]) {
        let running = Task { await work() }
        var asked: [Duration] = []
        for _ in 0..<waits {
            let deadline = await clock.sleepers(1)[0]
            asked.append(deadline - clock.uptime)
            clock.advance(by: deadline - clock.uptime)
        }
        return (await running.value, asked)
    }

    private func failure(_ analyzer: OpenAIAnalyzer) async -> AIFailure? {
        do {
            _ = try await analyzer.analyse(jpeg: photo)
            return nil
        } catch {
            return error
        }
    }

    @Test("should ask again with the first answer as the model's turn and the person's sentence after it")
    func correction() async throws {
        let analyzer = analyzer()
        let first = try await analyzer.analyse(jpeg: photo)
        let corrected = try await analyzer.correct(
            jpeg: photo, first: first, sentence: "no parmesan, it was plain", dietary: [.vegan], language: .en)
        let request = try #require(try await fake.requests().last)
        #expect(request["correction"] as? String == "no parmesan, it was plain")
        let sent = try #require(request["first_answer"] as? [String: Any])
        #expect(sent["title"] as? String == first.title && sent["calories"] as? Int == first.totals.calories)
        #expect((sent["items"] as? [[String: Any]])?.map { $0["name"] as? String } == first.items.map(\.name))
        #expect(request["bad_request"] == nil, "the stand-in takes the turns as OpenAI does")
        // The stand-in's model drops what the sentence says there was none of.
        #expect(corrected.items.map(\.name) == ["Spaghetti", "Tomato sauce"])
        #expect(corrected.totals.calories == first.totals.calories - 120)
        try await fake.queue("openai", ["refusal"])
        await #expect(throws: AIFailure.refused("I can't help with identifying that.")) {
            try await analyzer.correct(jpeg: photo, first: first, sentence: "no pasta", dietary: [], language: .de)
        }
    }

    @Test("should send the photo sized for low detail with a strict schema, and read the meal")
    func analyses() async throws {
        let meal = try await analyzer().analyse(jpeg: photo)
        #expect(meal.title == "Spaghetti with tomato sauce")
        #expect(meal.totals == Macros(calories: 650, protein: 24, carbs: 80, fats: 22))
        #expect(meal.items.map(\.contains) == [[.gluten], [], [.dairy, .lactose]])
        let request = try #require(try await fake.requests().last)
        #expect(request["auth_ok"] as? Bool == true)
        #expect(request["model"] as? String == "gpt-4o-mini")
        #expect(request["detail"] as? String == "low")
        #expect(request["image_size"] as? [Int] == [512, 384])
        #expect((request["prompt"] as? String)?.contains("vegan") == true)
        #expect(request["bad_request"] == nil)
    }

    @Test("should say the key was refused on 401, without retrying")
    func unauthorized() async throws {
        #expect(await failure(analyzer(key: "wrong")) == .unauthorized)
        #expect(try await fake.requests().count == 1)
    }

    @Test("should wait out a short Retry-After, exactly as long as it says, and then succeed")
    func shortRetryAfter() async throws {
        try await fake.queue("openai", ["429:7"])
        let clock = HeldClock()
        let analyzer = analyzer(clock: clock)
        let photo = photo
        let (meal, waits) = await waited(on: clock, waits: 1) { try? await analyzer.analyse(jpeg: photo) }
        #expect(meal != nil)
        #expect(waits == [.seconds(7)], "the Retry-After's 7 s, no more, no less")
        #expect(try await fake.requests().count == 2)
    }

    @Test("should show a long Retry-After to the person instead of waiting")
    func longRetryAfter() async throws {
        try await fake.queue("openai", ["429:120"])
        #expect(await failure(analyzer()) == .rateLimited(retryAfter: .seconds(120)))
        #expect(try await fake.requests().count == 1)
    }

    @Test("should retry server errors and a reset connection with backoff, then succeed")
    func retries() async throws {
        try await fake.queue("openai", ["500", "reset"])
        let clock = HeldClock()
        let analyzer = analyzer(clock: clock)
        let photo = photo
        let (meal, waits) = await waited(on: clock, waits: 2) { try? await analyzer.analyse(jpeg: photo) }
        #expect(meal != nil)
        #expect(try await fake.requests().count == 3)
        // 2 s, then 4 s, each ±50 % (the jitter that keeps stations out of step).
        #expect(waits.count == 2)
        #expect((Duration.seconds(1)...Duration.seconds(3)).contains(waits.first ?? .zero), "\(waits)")
        #expect((Duration.seconds(2)...Duration.seconds(6)).contains(waits.last ?? .zero), "\(waits)")
    }

    @Test("should give up after its attempts with the last server error")
    func givesUp() async throws {
        try await fake.queue("openai", ["503", "503", "503"])
        let clock = HeldClock()
        let analyzer = analyzer(clock: clock)
        let (failed, waits) = await waited(on: clock, waits: 2) { await self.failure(analyzer) }
        #expect(failed == .serverError(status: 503))
        #expect(waits.count == 2 && clock.uptime == waits.reduce(.zero, +), "two waits, none after the last")
        #expect(try await fake.requests().count == 3)
    }

    @Test("should time out on a silent server and on a slow drip")
    func timeouts() async throws {
        try await fake.queue("openai", ["timeout", "drip"])
        #expect(await failure(analyzer(attempts: 2, timeout: .seconds(1))) == .timedOut)
    }

    @Test("should name a refusal, malformed JSON, an off-schema answer and totals that do not add up")
    func badAnswers() async throws {
        try await fake.queue("openai", ["refusal", "malformed", "offschema", "mismatch"])
        let analyzer = analyzer()
        #expect(await failure(analyzer) == .refused("I can't help with identifying that."))
        let malformed = await failure(analyzer)
        let offSchema = await failure(analyzer)
        let mismatch = await failure(analyzer)
        #expect(malformed == .malformedAnswer("not the JSON the schema asks for"))
        #expect(offSchema == .malformedAnswer("not the JSON the schema asks for"))
        #expect(mismatch == .malformedAnswer("the total of 2400 kcal is not the items' 650 kcal"))
    }

    @Test("should refuse numbers no plate holds, 1,000 items and a 20 MB answer, as answers it could not read")
    func hostileAnswers() async throws {
        try await fake.queue("openai", ["overflow", "manyitems", "huge"])
        let analyzer = analyzer()
        #expect(await failure(analyzer) == .malformedAnswer("the meal's totals are outside what a plate holds"))
        #expect(await failure(analyzer) == .malformedAnswer("1000 items (a meal has 1 to 50)"))
        let huge = await failure(analyzer)
        #expect(huge == .malformedAnswer("the answer is larger than 1048576 bytes"), "\(String(describing: huge))")
    }

    @Test("should say offline when the service cannot be reached")
    func offline() async {
        let unreachable = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: "http://127.0.0.1:1/v1", key: "test-key"),
            client: HTTPClient(), logger: log.logger)
        #expect(await failure(unreachable) == .offline)
    }

    @Test("should never write the key into a log line or an error")
    func keyNeverLogged() async throws {
        try await fake.queue("openai", ["500", "ok"])
        let clock = HeldClock()
        let analyzer = analyzer(clock: clock)
        let photo = photo
        let (meal, _) = await waited(on: clock, waits: 1) { try? await analyzer.analyse(jpeg: photo) }
        #expect(meal != nil)
        _ = await failure(self.analyzer(key: "wrong"))
        #expect(log.all.count >= 3)
        #expect(!log.all.contains { $0.contains("test-key") || $0.contains("wrong") })
        #expect(!"\(AIFailure.unauthorized.message)".contains("key:"))
    }

    @Test("should read Retry-After as seconds or as an HTTP date")
    func retryAfterFormats() {
        let now = Date(timeIntervalSince1970: 1_795_435_200)
        #expect(OpenAIAnalyzer.retryAfter("30", now: now) == .seconds(30))
        let date = now.addingTimeInterval(90)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(OpenAIAnalyzer.retryAfter(formatter.string(from: date), now: now) == .seconds(90))
        #expect(OpenAIAnalyzer.retryAfter(formatter.string(from: now.addingTimeInterval(-5)), now: now) == .zero)
        #expect(OpenAIAnalyzer.retryAfter("soon", now: now) == nil)
    }
}
