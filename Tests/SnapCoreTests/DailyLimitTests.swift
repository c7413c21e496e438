import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("DailyLimit")
struct DailyLimitTests {
    let berlin = Samples.berlin

    private func remaining(at local: String) -> Duration {
        let date = ManualClock.date(local, in: berlin)
        return DailyLimit.remaining(
            from: date, untilEndOf: LocalDay(containing: date, in: berlin), in: berlin)
    }

    @Test("should count 21:30:00 to midnight on the spring-forward day in Berlin")
    func springForward() {
        #expect(remaining(at: "2026-03-29 01:30:00") == .seconds(21 * 3600 + 30 * 60))
    }

    @Test("should count 23:30:00 to midnight from the first 01:30 of the fall-back day in Berlin")
    func fallBack() {
        #expect(remaining(at: "2026-10-25 01:30:00") == .seconds(23 * 3600 + 30 * 60))
    }

    @Test("should count 00:30:00 from 23:30 on the evening before spring-forward")
    func eveningBefore() {
        #expect(remaining(at: "2026-03-28 23:30:00") == .seconds(30 * 60))
    }

    @Test("should put the next reset at local midnight, not 24 hours later")
    func nextResetIsMidnight() {
        let reset = DailyLimit.nextReset(after: ManualClock.date("2026-03-29 10:00:00", in: berlin), in: berlin)
        #expect(reset == ManualClock.date("2026-03-30 00:00:00", in: berlin))
    }

    @Test("should start the day at the first existing instant where DST skips midnight")
    func skippedMidnight() throws {
        // Chile moves its clocks at midnight: 2026-09-06 00:00 does not exist in America/Santiago.
        let santiago = try #require(TimeZone(identifier: "America/Santiago"))
        let evening = ManualClock.date("2026-09-05 22:00:00", in: santiago)
        let reset = DailyLimit.nextReset(after: evening, in: santiago)
        #expect(LocalDay(containing: reset, in: santiago) == LocalDay(year: 2026, month: 9, day: 6))
        // 22:00 (UTC-4) to 01:00 (UTC-3): two real hours, and the new day starts at 01:00.
        #expect(reset.timeIntervalSince(evening) == 7200)
        #expect(Calendar.gregorian(in: santiago).component(.hour, from: reset) == 1)
    }

    @Test("should read and write local days as YYYY-MM-DD")
    func dayText() {
        let day = LocalDay(year: 2026, month: 3, day: 9)
        #expect(day.description == "2026-03-09")
        #expect(LocalDay("2026-03-09") == day)
        #expect(LocalDay("March") == nil)
        #expect(LocalDay("2026-3-9") == day)
        #expect(LocalDay(year: 33, month: 12, day: 1).description == "0033-12-01")
        #expect(LocalDay(year: 12026, month: 1, day: 31).description == "12026-01-31")
        #expect(LocalDay("9999-12-31") == LocalDay(year: 9999, month: 12, day: 31))
        for wrong in [
            "", "2026-03", "2026-03-09-", "-2026-03-09", "2026--09", "2026-13-09", "2026-03-32", "0000-03-09",
            "2026-03-0x", "2026-03-09 ", "+2026-03-09", "2026-03-1000000000",
        ] {
            #expect(LocalDay(wrong) == nil, "\(wrong)")
        }
    }
}
