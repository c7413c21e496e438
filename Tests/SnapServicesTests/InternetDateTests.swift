import Foundation
import SnapServices
import Testing

@Suite("InternetDate")
struct InternetDateTests {
    @Test("should read PostgREST's timestamps, with fractions and offsets, as Foundation does")
    func rfc3339() throws {
        let noon = Date(timeIntervalSince1970: 1_773_144_000)  // 2026-03-10T12:00:00Z
        #expect(InternetDate.rfc3339("2026-03-10T12:00:00+00:00") == noon)
        #expect(InternetDate.rfc3339("2026-03-10T12:00:00Z") == noon)
        #expect(InternetDate.rfc3339("2026-03-10 13:30:00+01:30") == noon)
        #expect(InternetDate.rfc3339("2026-03-10T07:00:00-05") == noon)
        let fraction = try #require(InternetDate.rfc3339("2026-03-10T12:00:00.123456+00:00"))
        #expect(abs(fraction.timeIntervalSince(noon) - 0.123456) < 1e-6)
        #expect(InternetDate.rfc3339("2024-02-29T00:00:00Z") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(InternetDate.rfc3339("1969-12-31T23:59:59Z") == Date(timeIntervalSince1970: -1))
        // Agrees with Foundation on a spread of dates.
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -2_000_000_000, to: 4_000_000_000, by: 86_399 * 97) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(InternetDate.rfc3339(formatter.string(from: date)) == date)
        }
    }

    @Test("should refuse what is not a timestamp, without crashing on a fraction of hundreds of digits")
    func hostile() {
        let longFraction = "2026-11-25T02:00:00." + String(repeating: "9", count: 400) + "+00"
        let read = InternetDate.rfc3339(longFraction)
        #expect(read.map { abs($0.timeIntervalSince1970 - 1_795_572_001) < 0.001 } == true)
        for text in [
            "", "226-11-23T12:00:00+00:00", "20-11-25T2:00:00Z", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
            "2026-03-10T24:00:00Z", "2026-03-10T12:00:00", "2026-03-10T12:00:00+25:00", "2026-03-10T12:00:00.Z",
            "2026-03-10T12:00:00Z trailing", "٢٠٢٦-03-10T12:00:00Z",
        ] {
            #expect(InternetDate.rfc3339(text) == nil, "\(text)")
        }
    }

    @Test("should read an HTTP date, and refuse other forms")
    func http() {
        #expect(InternetDate.http("Tue, 10 Mar 2026 12:00:00 GMT") == Date(timeIntervalSince1970: 1_773_144_000))
        for text in [
            "Tue, 10 Mar 2026 12:00:00 UTC", "10 Mar 2026 12:00:00 GMT", "Tue, 32 Mar 2026 12:00:00 GMT",
            "Tue, 10 Foo 2026 12:00:00 GMT", "Tue, 10 Mar 2026 12:00 GMT",
        ] {
            #expect(InternetDate.http(text) == nil, "\(text)")
        }
    }
}
