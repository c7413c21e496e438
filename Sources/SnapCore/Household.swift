/// Who a meal belongs to: a person of the household, by the number the store gave them. The first
/// person (1) is the owner, made by the store's migration: every meal logged before there were people is
/// theirs, and they cannot be removed.
public struct PersonID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The owner, who is there from the start.
    public static let first = PersonID(rawValue: 1)

    public static func < (lhs: PersonID, rhs: PersonID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "person \(rawValue)" }
}

/// A person's colour on the jar, the result sheet and the page: one of a few that stand apart from each
/// other on the jar's dark glass and on the page's white (a free colour could be the jar's own, or two
/// people's nearly the same).
public enum PersonColour: String, Sendable, Hashable, CaseIterable, Codable {
    case orange, blue, green, purple, red, teal, pink, yellow

    /// The colour as 0xRRGGBB.
    public var rgb: UInt32 {
        switch self {
        case .orange: 0xE8_59_0C
        case .blue: 0x1C_7E_D6
        case .green: 0x2F_9E_44
        case .purple: 0x84_5E_F7
        case .red: 0xE0_31_31
        case .teal: 0x0C_A6_78
        case .pink: 0xD6_33_6C
        case .yellow: 0xF5_9F_00
        }
    }

    /// The colour as CSS writes it.
    public var css: String {
        let hex = String(rgb, radix: 16)
        return "#" + String(repeating: "0", count: 6 - hex.count) + hex
    }
}

/// One person of the household: what the station and the page show of them, and their own goals.
public struct Person: Sendable, Hashable {
    public var id: PersonID
    /// The name as the owner typed it (`PersonName`), empty for the owner until they name themselves.
    public var name: String
    public var colour: PersonColour
    /// Their daily goals; nil for none. The first person's are the station's (`[goals]` and the page's
    /// settings), so a station that had goals before it had people keeps them.
    public var goals: Macros?
    /// The most of each day's AI analyses this person may use, nil for no share of their own (the
    /// station's `ai.daily_limit` is the whole household's either way).
    public var aiShare: Int?

    public init(id: PersonID, name: String, colour: PersonColour, goals: Macros? = nil, aiShare: Int? = nil) {
        self.id = id
        self.name = name
        self.colour = colour
        self.goals = goals
        self.aiShare = aiShare
    }
}

/// A person's name as the owner typed it: printable (`String.printable`), 1 to 24 characters, short
/// enough for the result sheet's line on a small display.
public enum PersonName {
    public static let limit = 24

    /// The name fit to keep, or nil when nothing printable is left or it is too long.
    public static func parse(_ raw: String) -> String? {
        let text = raw.printable(limit: limit + 1)
        guard !text.isEmpty, text.count <= limit else { return nil }
        return text
    }
}

/// The people who share the station, the owner first; never empty.
public struct Household: Sendable, Hashable {
    public private(set) var people: [Person]

    /// A household of `people` in the store's order, the owner (`PersonID.first`) first; an empty list
    /// is the owner alone.
    public init(_ people: [Person]) {
        let owner = people.first { $0.id == .first } ?? Person(id: .first, name: "", colour: .orange)
        self.people = [owner] + people.filter { $0.id != .first }
    }

    /// The owner alone: a station before anyone was added.
    public static let alone = Household([])

    /// More than one person: only then does the station show whose meal it is.
    public var isShared: Bool { people.count > 1 }

    public func person(_ id: PersonID) -> Person? { people.first { $0.id == id } }

    /// The analyses `id` may still ask for today by their share (`Person.aiShare`), having used `used`:
    /// nil for someone without a share, and always with one person (the station's limit is theirs).
    public func shareLeft(of id: PersonID, used: Int) -> Int? {
        guard isShared, let share = person(id)?.aiShare else { return nil }
        return max(0, share - used)
    }

    /// The person after `id` in the household's order, the first after the last (the mode button's round).
    public func next(after id: PersonID) -> PersonID {
        guard let index = people.firstIndex(where: { $0.id == id }) else { return .first }
        return people[(index + 1) % people.count].id
    }

    /// The goals `id`'s day is measured against: the owner's are the station's (`station`: `[goals]` and the
    /// page's settings), anyone else's their own (none when they set none). The station, the page and Home
    /// Assistant all measure with this.
    public func goals(of id: PersonID, station: Macros) -> Macros {
        id == .first ? station : person(id)?.goals ?? .zero
    }

    /// `id` when that person is still in the household, the owner otherwise (someone removed on the page).
    public func present(_ id: PersonID) -> PersonID { person(id) == nil ? .first : id }

    /// The colour a new person gets: the first not taken, or the first again when all are.
    public var unusedColour: PersonColour {
        PersonColour.allCases.first { colour in !people.contains { $0.colour == colour } } ?? .orange
    }
}
