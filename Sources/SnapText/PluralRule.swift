/// A language's plural rule, written in its catalog in CLDR's syntax (unicode.org/reports/tr35, "Language
/// Plural Rules"), so a language with more forms than English's two ("1 meal", "2 meals") is added as data:
/// Polish's `few` and `many`, Arabic's six. Only whole numbers are counted here (meals, photos, minutes),
/// so the operands are `n` and `i` (the number), and `v`, `w`, `f`, `t`, `c`, `e` are 0.
///
///     "one": "i = 1 and v = 0"
///     "few": "v = 0 and i % 10 = 2..4 and i % 100 != 12..14"
///
/// A number no rule matches is `other`, which every catalog has.
public struct PluralRule: Sendable, Hashable {
    /// A CLDR plural category.
    public enum Category: String, Sendable, Hashable, CaseIterable, Comparable {
        case zero, one, two, few, many, other

        public static func < (lhs: Category, rhs: Category) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// One `operand [% modulus] (= | !=) ranges`.
    struct Relation: Sendable, Hashable {
        var operand: Character
        var modulus: Int?
        var negated: Bool
        var ranges: [ClosedRange<Int>]

        func holds(for number: Int) -> Bool {
            var value = "nij".contains(operand) ? abs(number) : 0
            if let modulus { value %= modulus }
            return ranges.contains { $0.contains(value) } != negated
        }
    }

    /// Conditions in the order CLDR gives them; each an `or` of `and`s.
    let conditions: [(category: Category, any: [[Relation]])]

    public static func == (lhs: PluralRule, rhs: PluralRule) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    let source: [String: String]

    /// The categories a catalog's plural entries must have: those of the rule, and `other`.
    public var categories: [Category] { (conditions.map(\.category) + [.other]).sorted() }

    /// Parses `rules` (category name to condition); throws with the category and what was expected.
    public init(_ rules: [String: String]) throws(CatalogProblem) {
        source = rules
        var conditions: [(Category, [[Relation]])] = []
        for (name, text) in rules.sorted(by: { $0.key < $1.key }) {
            guard let category = Category(rawValue: name), category != .other else {
                throw CatalogProblem("plural rule \"\(name)\": expected zero, one, two, few or many")
            }
            do {
                conditions.append((category, try Self.parse(text)))
            } catch {
                throw CatalogProblem("plural rule \"\(name)\": \(error.text)")
            }
        }
        // CLDR's categories never overlap, so their order only matters for a faulty rule: fixed here.
        self.conditions = conditions.sorted { $0.0 < $1.0 }
    }

    /// The category of `count`.
    public func category(_ count: Int) -> Category {
        for (category, any) in conditions where any.contains(where: { all in all.allSatisfy { $0.holds(for: count) } })
        {
            return category
        }
        return .other
    }

    /// `condition = and_condition ('or' and_condition)*`, up to CLDR's sample lists (`@integer …`).
    static func parse(_ text: String) throws(CatalogProblem) -> [[Relation]] {
        let condition = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let words = condition.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { throw CatalogProblem("an empty condition") }
        var any: [[Relation]] = [[]]
        var index = 0
        func next() -> String? {
            defer { index += 1 }
            return index < words.count ? words[index] : nil
        }
        while let word = next() {
            switch word {
            case "or": any.append([])
            case "and": continue
            default:
                guard word.count == 1, let operand = word.first, "nivwftce".contains(operand) else {
                    throw CatalogProblem("\"\(word)\" is not an operand (n, i, v, w, f, t, c or e)")
                }
                var modulus: Int?
                var sign = next()
                if sign == "%" {
                    guard let value = next().flatMap(Int.init), value > 0 else {
                        throw CatalogProblem("expected a number after %")
                    }
                    modulus = value
                    sign = next()
                }
                let negated: Bool
                switch sign {
                case "=": negated = false
                case "!=": negated = true
                default: throw CatalogProblem("expected = or != after \(operand)")
                }
                guard let list = next() else { throw CatalogProblem("expected numbers after =") }
                var ranges: [ClosedRange<Int>] = []
                for part in list.split(separator: ",") {
                    let bounds = part.split(separator: ".", omittingEmptySubsequences: true).compactMap { Int($0) }
                    switch bounds.count {
                    case 1: ranges.append(bounds[0]...bounds[0])
                    case 2 where bounds[0] <= bounds[1]: ranges.append(bounds[0]...bounds[1])
                    default: throw CatalogProblem("\"\(part)\" is not a number or a range like 2..4")
                    }
                }
                any[any.count - 1].append(
                    Relation(operand: operand, modulus: modulus, negated: negated, ranges: ranges))
            }
        }
        guard !any.contains(where: \.isEmpty) else { throw CatalogProblem("\"or\" with nothing on one side") }
        return any
    }
}
