import Foundation
import SnapCore
import SnapImaging
import SnapServices
import SnapTestSupport
import Testing

/// Every answer the AI service gives (docs/ai-service.md, served by Tests/Fakes/openai_faults.py) against
/// what the station makes of it: the words on the screen, whether it tried again, how many requests it
/// sent and how long the person waited. The table it prints is the one in docs/ai-service.md.
@Suite("OpenAIAnalyzer: each answer the service gives, as the station shows it", .serialized, .startsProcesses)
struct OpenAIAnalyzerMatrixTests {
    let fake: FakeServices
    let photo: [UInt8]

    init() async throws {
        fake = try await FakeServices()
        photo = try JPEG.encode(TestImages.noise(width: 1024, height: 768), quality: 80)
    }

    /// One row: the faults queued, what the station should make of them, and the requests it should send.
    struct Case: Sendable {
        var faults: [String]
        var expected: AIFailure?
        var requests: Int
    }

    static let cases: [Case] = [
        Case(faults: ["ok"], expected: nil, requests: 1),
        Case(faults: ["refusal"], expected: .refused("I can't help with identifying that."), requests: 1),
        Case(faults: ["content_filter"], expected: .refused("withheld by the content filter"), requests: 1),
        Case(faults: ["null_content"], expected: .refused("an answer with no content"), requests: 1),
        Case(faults: ["length"], expected: .malformedAnswer("the answer was cut off"), requests: 1),
        Case(faults: ["400_image"], expected: .photoUnreadable, requests: 1),
        Case(faults: ["400_image_format"], expected: .photoUnreadable, requests: 1),
        Case(faults: ["400_max_tokens"], expected: nil, requests: 1),
        Case(faults: ["400_temperature"], expected: nil, requests: 1),
        Case(faults: ["400_schema"], expected: nil, requests: 1),
        Case(faults: ["401"], expected: .unauthorized, requests: 1),
        Case(faults: ["403_region"], expected: .regionNotSupported, requests: 1),
        Case(faults: ["403_model"], expected: .modelUnavailable("gpt-4o-mini"), requests: 1),
        Case(faults: ["404_model"], expected: .modelUnavailable("gpt-4o-mini"), requests: 1),
        Case(faults: ["429_quota"], expected: .noCredit, requests: 1),
        Case(faults: ["429:1"], expected: nil, requests: 2),
        Case(faults: ["429:120"], expected: .rateLimited(retryAfter: .seconds(120)), requests: 1),
        Case(faults: ["429_ms:300"], expected: nil, requests: 2),
        Case(faults: ["429_ms_ra:300"], expected: nil, requests: 2),
        Case(faults: ["429_reset:20ms,6m0s"], expected: nil, requests: 2),
        Case(faults: ["500"], expected: nil, requests: 2),
        Case(faults: ["503", "503", "503"], expected: .serverError(status: 503), requests: 3),
        Case(faults: ["llama_no_mmproj"], expected: .cannotSeeImages, requests: 1),
        Case(faults: ["reset"], expected: nil, requests: 2),
        Case(faults: ["timeout"], expected: .timedOut, requests: 1),
    ]

    @Test("should name each failure, retry only what may heal, and keep the person's wait short")
    func matrix() async throws {
        let analyzer = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(
                baseURL: fake.baseURL + "/v1", key: "test-key", attempts: 3, retryBase: .milliseconds(50),
                longestWait: .seconds(20)),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(2)), logger: CapturedLog().logger)
        var rows = ["| answer | shown at the station | retried | requests | waited |", "|---|---|---|---:|---:|"]
        for row in Self.cases {
            try await fake.clearFaults()
            let before = try await fake.requests().count
            try await fake.queue("openai", row.faults)
            let started = ContinuousClock.now
            var failure: AIFailure?
            do { _ = try await analyzer.analyse(jpeg: photo, dietary: []) } catch { failure = error }
            let waited = ContinuousClock.now - started
            let sent = try await fake.requests().count - before
            switch (row.expected, failure) {
            case (nil, nil): break
            case (nil, .requestRefused?) where row.faults[0].hasPrefix("400"): break
            case (let expected?, let failure?) where expected == failure: break
            default:
                Issue.record(
                    "\(row.faults): expected \(String(describing: row.expected)), got \(String(describing: failure))")
            }
            #expect(sent == row.requests, "\(row.faults): \(sent) requests")
            let shown = failure.map { $0.message } ?? "the meal"
            rows.append(
                "| \(row.faults.joined(separator: ", ")) | \(shown) | \(sent > 1 ? "yes" : "no") | \(sent) | "
                    + String(
                        format: "%.1f s",
                        Double(waited.components.seconds) + Double(waited.components.attoseconds) * 1e-18)
                    + " |")
        }
        print(rows.joined(separator: "\n"))
    }

    @Test("should read the wait a rate limit names: retry-after-ms, retry-after, the spent limit's reset")
    func waits() {
        func wait(_ headers: [String: String]) -> Duration? {
            OpenAIAnalyzer.retryWait({ headers[$0] }, now: Date(timeIntervalSince1970: 1_795_435_200))
        }
        #expect(wait(["retry-after-ms": "1500", "retry-after": "9"]) == .milliseconds(1500))
        #expect(wait(["retry-after": "1.5"]) == .milliseconds(1500))
        #expect(wait(["retry-after": "2"]) == .seconds(2))
        #expect(
            wait([
                "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s",
                "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms",
            ]) == .seconds(360))
        #expect(
            wait(["x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "1s"]) == nil,
            "a limit not spent says nothing of the wait")
        #expect(
            wait(["x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "8.64s"]) == .milliseconds(8640))
        #expect(wait([:]) == nil && wait(["retry-after": "soon"]) == nil)
    }

    @Test("should send what every current model and local server accepts, the schema in its deliberate order")
    func request() async throws {
        let local = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: fake.baseURL + "/v1", key: "test-key"),
            client: HTTPClient(), logger: CapturedLog().logger)
        _ = try await local.analyse(jpeg: photo, dietary: [])
        let sent = try #require(try await fake.requests().last)
        #expect(sent["key_order"] as? [String] == ["model", "messages", "response_format"], "no cap, no sampling")
        #expect(sent["bad_request"] == nil && sent["status"] as? Int == 200)
        let openAI = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: "https://api.openai.com/v1", key: "k"),
            client: HTTPClient(), logger: CapturedLog().logger)
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data(openAI.requestBody(image: [0xFF, 0xD8]))) as? [String: Any])
        #expect(body["max_completion_tokens"] as? Int == 16_384)
        #expect(body["max_tokens"] == nil && body["temperature"] == nil)
        // The schema exactly as Tests/AI/check_openai_sdk.py holds it to the SDK's strict conversion.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        python.arguments = ["python3", repository + "/Tests/AI/check_openai_sdk.py", "--print-schema"]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        let text = String(decoding: openAI.requestBody(image: [0xFF, 0xD8]), as: UTF8.self)
        #expect(text.contains("\"schema\":" + printed.trimmingCharacters(in: .whitespacesAndNewlines) + "}"))
    }

    @Test("should send no Authorization header without a key, for a local server that needs none")
    func noKey() async throws {
        let keyless = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: fake.baseURL + "/v1", key: ""),
            client: HTTPClient(), logger: CapturedLog().logger)
        // The stand-in is OpenAI, which needs a key: its 401 for a missing header proves none was sent.
        do {
            _ = try await keyless.analyse(jpeg: photo, dietary: [])
            Issue.record("OpenAI's stand-in took a request without a key")
        } catch {
            #expect(error == .unauthorized)
        }
        let sent = try #require(try await fake.requests().last)
        #expect(sent["auth_ok"] as? Bool == false)
    }
}
