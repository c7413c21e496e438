import Logging
import SnapServices
import SnapTestSupport

extension FakeServices {
    /// An analyser of the OpenAI stand-in with its key, asked once (no retries): for the requests in text
    /// alone (a planned meal, a described one), whose tests look at one request each.
    func textAnalyzer(label: String) -> OpenAIAnalyzer {
        OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: baseURL + "/v1", key: "test-key", attempts: 1),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)),
            logger: Logger(label: label))
    }
}
