import Foundation
import SnapCore
import Testing

@Suite("LocalDay: days by arithmetic, as the Gregorian calendar counts them")
struct LocalDayArithmeticTests {
    @Test("should add and take away days as Foundation's calendar does, across months, leap years and centuries")
    func addingAsCalendar() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        for start in ["1899-12-31", "1970-01-01", "2000-02-28", "2024-02-29", "2026-03-09", "2100-02-28", "9998-12-30"]
        {
            let day = try #require(LocalDay(start))
            let noon = try #require(
                calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12)))
            for offset in [-800, -366, -365, -31, -1, 0, 1, 2, 28, 29, 59, 365, 366, 1461] {
                let moved = try #require(calendar.date(byAdding: .day, value: offset, to: noon))
                #expect(day.adding(days: offset) == LocalDay(containing: moved, in: utc), "\(start) \(offset)")
            }
        }
        #expect(LocalDay(year: 7, month: 3, day: 4).description == "0007-03-04")
        #expect(LocalDay(year: 2026, month: 11, day: 28).description == "2026-11-28")
    }
}
