import SnapCore

/// Reads typed values out of a `TOMLDocument` by dotted path, collecting every problem instead of
/// stopping at the first.
///
/// Every path a reader is asked for becomes a known key, so the schema is just the code that reads the
/// config: the unknown-key check and its "did you mean" suggestions cannot drift from it.
struct ConfigReader {
    private var nodes: [String: TOMLDocument.Node] = [:]
    private var tables: [String: Int] = [:]
    private(set) var knownKeys: [String] = []
    /// Keys an earlier version read: reported with the reason, never as unknown.
    private var retiredKeys: Set<String> = []
    private(set) var problems: [ConfigProblem] = []

    init(_ document: TOMLDocument) {
        flatten(document.root, prefix: "")
    }

    private mutating func flatten(_ entries: [(key: String, node: TOMLDocument.Node)], prefix: String) {
        for (key, node) in entries {
            let path = prefix + key
            if case .table(let children) = node.value {
                tables[path] = node.line
                flatten(children, prefix: path + ".")
            } else {
                nodes[path] = node
            }
        }
    }

    /// The line a problem about `path` points at: the value's line, else its table's, else 1.
    func line(of path: String) -> Int {
        if let node = nodes[path] { return node.line }
        var parts = path.split(separator: ".").map(String.init)
        while !parts.isEmpty {
            parts.removeLast()
            if let line = tables[parts.joined(separator: ".")] { return line }
        }
        return 1
    }

    func isSet(_ path: String) -> Bool { nodes[path] != nil }

    mutating func report(_ path: String, _ message: String, expected: String) {
        problems.append(ConfigProblem(line: line(of: path), key: path, message: message, expected: expected))
    }

    /// The raw node at `path`, marking the path as known.
    private mutating func node(_ path: String) -> TOMLDocument.Node? {
        knownKeys.append(path)
        return nodes[path]
    }

    private mutating func wrongType(_ path: String, _ node: TOMLDocument.Node, expected: String) {
        report(path, "wrong type: found \(node.value.typeName)", expected: expected)
    }

    /// The value at `path` as `extract` reads it; a value of another type is reported and the default used.
    private mutating func typed<Value>(
        _ path: String, default value: Value, expected: String, _ extract: (TOMLDocument.Value) -> Value?
    ) -> Value {
        guard let node = node(path) else { return value }
        guard let typed = extract(node.value) else {
            wrongType(path, node, expected: expected)
            return value
        }
        return typed
    }

    /// `number` when it lies in `range`; otherwise reported and the default used.
    private mutating func inRange<Number: Comparable>(
        _ path: String, _ number: Number, default value: Number, _ range: ClosedRange<Number>, shown: String,
        expected: String
    ) -> Number {
        guard range.contains(number) else {
            report(path, "\(shown) is out of range", expected: expected)
            return value
        }
        return number
    }

    mutating func string(_ path: String, default value: String) -> String {
        typed(path, default: value, expected: "a string in quotes") {
            if case .string(let text) = $0 { text } else { nil }
        }
    }

    mutating func bool(_ path: String, default value: Bool) -> Bool {
        typed(path, default: value, expected: "true or false") {
            if case .boolean(let flag) = $0 { flag } else { nil }
        }
    }

    mutating func int(_ path: String, default value: Int, in range: ClosedRange<Int>) -> Int {
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
        let number = typed(path, default: value, expected: expected) {
            if case .integer(let number) = $0 { Int(number) } else { nil }
        }
        return inRange(path, number, default: value, range, shown: "\(number)", expected: expected)
    }

    mutating func double(_ path: String, default value: Double, in range: ClosedRange<Double>) -> Double {
        let expected = "a number from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
        let number = typed(path, default: value, expected: expected) {
            switch $0 {
            case .float(let float): float
            case .integer(let integer): Double(integer)
            default: nil
            }
        }
        return inRange(path, number, default: value, range, shown: number.formatted, expected: expected)
    }

    /// One of a fixed set of words, such as a backend name.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ path: String, default value: Choice) -> Choice
    where Choice.RawValue == String {
        let words = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let text = string(path, default: value.rawValue)
        guard let choice = Choice(rawValue: text) else {
            let hint =
                Suggestions.closest(to: text, among: Choice.allCases.map(\.rawValue)).map {
                    "; did you mean \"\($0)\"?"
                } ?? ""
            report(path, "\"\(text)\" is not allowed\(hint)", expected: "one of \(words)")
            return value
        }
        return choice
    }

    /// A list of strings, each optionally from a fixed set, with at most `maxCount` entries.
    mutating func strings(
        _ path: String, default value: [String], allowed: [String]? = nil, maxCount: Int = .max
    ) -> [String] {
        var expected =
            allowed.map { "a list of " + $0.map { "\"\($0)\"" }.joined(separator: ", ") } ?? "a list of strings"
        if maxCount != .max { expected += ", at most \(maxCount)" }
        guard let node = node(path) else { return value }
        guard case .array(let elements) = node.value else {
            wrongType(path, node, expected: expected)
            return value
        }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element.value else {
                report(path, "entry \(index + 1) is \(element.value.typeName)", expected: expected)
                return value
            }
            if let allowed, !allowed.contains(text) {
                let hint = Suggestions.closest(to: text, among: allowed).map { "; did you mean \"\($0)\"?" } ?? ""
                report(path, "\"\(text)\" is not allowed\(hint)", expected: expected)
                return value
            }
            result.append(text)
        }
        guard result.count <= maxCount else {
            report(path, "\(result.count) entries are too many", expected: expected)
            return value
        }
        return result
    }

    /// One string or a list of strings (a single value reads as a list of one; "" as an empty list), at
    /// most `maxCount`, none empty and no two the same.
    mutating func stringOrStrings(_ path: String, default value: [String], maxCount: Int) -> [String] {
        let expected = "a string, or a list of at most \(maxCount) different strings"
        guard let node = nodes[path] else {
            knownKeys.append(path)
            return value
        }
        if case .string(let text) = node.value {
            knownKeys.append(path)
            return text.isEmpty ? [] : [text]
        }
        let list = strings(path, default: value, maxCount: maxCount)
        if list.contains("") {
            report(path, "an entry is empty", expected: expected)
            return value
        }
        if Set(list).count != list.count {
            report(path, "an entry appears twice", expected: expected)
            return value
        }
        return list
    }

    /// A key an earlier version read and this one does not: if set, it is reported with `reason`, so the
    /// installer learns what replaced it rather than "unknown key".
    mutating func retired(_ path: String, because reason: String, instead: String) {
        retiredKeys.insert(path)
        if nodes[path] != nil { report(path, "is no longer read: \(reason)", expected: instead) }
    }

    /// A GPIO line: an offset on the chip, or a line name such as `GPIO17`; "" or -1 means none.
    mutating func gpioLine(_ path: String, default value: GPIOLine?) -> GPIOLine? {
        let expected = "a line offset from 0 to 511, a line name such as \"GPIO17\", or \"\" for none"
        guard let node = node(path) else { return value }
        switch node.value {
        case .integer(-1): return nil
        case .integer(let offset) where (0...511).contains(offset): return .offset(Int(offset))
        case .integer(let offset):
            report(path, "\(offset) is out of range", expected: expected)
        case .string(""): return nil
        case .string(let name): return .name(name)
        default: wrongType(path, node, expected: expected)
        }
        return value
    }

    /// Reports every key in the document that no reader asked for, with the closest known key.
    mutating func reportUnknownKeys() {
        let known = Set(knownKeys)
        let knownTables = Set(
            knownKeys.flatMap { key in
                let parts = key.split(separator: ".")
                return (1..<parts.count).map { parts.prefix($0).joined(separator: ".") }
            })
        for (path, node) in nodes.sorted(by: { $0.value.line < $1.value.line })
        where !known.contains(path) && !retiredKeys.contains(path) {
            let table = path.split(separator: ".").dropLast().joined(separator: ".")
            if !table.isEmpty && !knownTables.contains(table) { continue }  // reported once, as its table
            let siblings = knownKeys.filter { $0.split(separator: ".").dropLast().joined(separator: ".") == table }
            let hint = Suggestions.closest(to: path, among: siblings).map { "; did you mean \"\($0)\"?" } ?? ""
            problems.append(
                ConfigProblem(
                    line: node.line, key: path, message: "unknown key\(hint)",
                    expected: "a key listed in docs/snapstation.example.toml"))
        }
        for (table, line) in tables.sorted(by: { $0.value < $1.value }) where !knownTables.contains(table) {
            let parent = table.split(separator: ".").dropLast().joined(separator: ".")
            if !parent.isEmpty && !knownTables.contains(parent) { continue }
            let hint = Suggestions.closest(to: table, among: Array(knownTables)).map { "; did you mean [\($0)]?" } ?? ""
            problems.append(
                ConfigProblem(
                    line: line, key: table, message: "unknown table\(hint)",
                    expected: "one of the tables listed in docs/snapstation.example.toml"))
        }
    }
}

extension Double {
    /// Whole numbers without ".0", others as Swift prints them.
    var formatted: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
