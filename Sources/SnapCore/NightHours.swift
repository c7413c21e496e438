import Foundation

/// The hours of the night the display sleeps (DPMS off) while the station idles, as local clock times:
/// "23:00-07:00" crosses midnight, "01:00-05:30" does not. A press wakes the display at once.
public struct NightHours: Sendable, Hashable, CustomStringConvertible {
    /// Minutes after local midnight.
    public var from: Int
    public var until: Int

    public init(from: Int, until: Int) {
        self.from = from
        self.until = until
    }

    /// "HH:MM-HH:MM"; nil for anything else, or for an empty window.
    public init?(_ text: String) {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map(Self.minutes)
        guard ends.count == 2, let from = ends[0], let until = ends[1], from != until else { return nil }
        self.init(from: from, until: until)
    }

    static func minutes(_ text: Substring) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]),
            let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    /// Whether `minute` (after local midnight) falls in the night.
    public func contains(minute: Int) -> Bool {
        from < until ? (from..<until).contains(minute) : minute >= from || minute < until
    }

    /// The first moment after `date` when the night starts or ends, by the clock of `calendar`'s zone: on
    /// the nights the clocks change, 07:00 comes an hour sooner or later than seven hours after midnight,
    /// and an edge the change skips (02:30 when 02:00 becomes 03:00) is taken as the time after the gap.
    public func nextEdge(after date: Date, in calendar: Calendar) -> Date? {
        [from, until].compactMap { minute in
            calendar.nextDate(
                after: date, matching: DateComponents(hour: minute / 60, minute: minute % 60, second: 0),
                matchingPolicy: .nextTime)
        }.min()
    }

    public var description: String { "\(ends.from)-\(ends.until)" }

    /// The start and the end as "HH:MM" (what a time field holds).
    public var ends: (from: String, until: String) {
        (String(format: "%02d:%02d", from / 60, from % 60), String(format: "%02d:%02d", until / 60, until % 60))
    }
}
