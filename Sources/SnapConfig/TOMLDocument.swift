internal import CSnapTOML

/// A parsed TOML document with the source position of every value.
///
/// Built from toml++ through the `ss_toml` shim; the station needs positions for `check-config`.
public struct TOMLDocument: Sendable {
    public indirect enum Value: Sendable, Hashable {
        case table([(key: String, node: Node)])
        case array([Node])
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        /// A date, time or date-time, as toml++ writes it.
        case dateTime(String)

        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.table(let a), .table(let b)): a.map(\.key) == b.map(\.key) && a.map(\.node) == b.map(\.node)
            case (.array(let a), .array(let b)): a == b
            case (.string(let a), .string(let b)): a == b
            case (.integer(let a), .integer(let b)): a == b
            case (.float(let a), .float(let b)): a == b
            case (.boolean(let a), .boolean(let b)): a == b
            case (.dateTime(let a), .dateTime(let b)): a == b
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(typeName)
        }

        /// How a problem message names this kind of value.
        public var typeName: String {
            switch self {
            case .table: "a table"
            case .array: "an array"
            case .string: "a string"
            case .integer: "an integer"
            case .float: "a float"
            case .boolean: "a boolean"
            case .dateTime: "a date/time"
            }
        }
    }

    /// A value and where it starts in the file (1-based line and column).
    public struct Node: Sendable, Hashable {
        public var value: Value
        public var line: Int
        public var column: Int
    }

    /// A syntax error in the document.
    public struct SyntaxError: Error, Sendable, Hashable {
        public var message: String
        public var line: Int
        public var column: Int
    }

    /// The top-level table.
    public var root: [(key: String, node: Node)]

    /// Parses TOML text; wraps `toml::parse`.
    public init(parsing text: String) throws(SyntaxError) {
        var builder = Builder()
        var error = ss_toml_error()
        let ok = text.utf8CString.withUnsafeBufferPointer { buffer in
            withUnsafeMutablePointer(to: &builder) { context in
                ss_toml_parse(
                    buffer.baseAddress, buffer.count - 1, context,
                    { context, node in
                        context!.assumingMemoryBound(to: Builder.self).pointee.add(node!.pointee)
                    }, &error)
            }
        }
        guard ok else {
            let message = withUnsafeBytes(of: error.message) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw SyntaxError(message: message, line: Int(error.line), column: Int(error.column))
        }
        root = builder.finish()
    }
}

/// Rebuilds the tree from the shim's pre-order walk: a stack of open containers, one per depth.
private struct Builder {
    private struct Open {
        var key: String?
        var line: Int
        var column: Int
        var isTable: Bool
        var entries: [(key: String, node: TOMLDocument.Node)] = []
        var elements: [TOMLDocument.Node] = []
    }

    private var stack = [Open(key: nil, line: 1, column: 1, isTable: true)]

    mutating func add(_ raw: ss_toml_node) {
        close(toDepth: Int(raw.depth))
        let key = raw.key.map { String(cString: $0) }
        let text = raw.text.map { String(cString: $0) } ?? ""
        let line = Int(raw.line)
        let column = Int(raw.column)
        let value: TOMLDocument.Value
        switch raw.kind {
        case SS_TOML_TABLE, SS_TOML_ARRAY:
            stack.append(Open(key: key, line: line, column: column, isTable: raw.kind == SS_TOML_TABLE))
            return
        case SS_TOML_STRING: value = .string(text)
        case SS_TOML_INTEGER: value = .integer(raw.integer)
        case SS_TOML_FLOAT: value = .float(raw.floating)
        case SS_TOML_BOOLEAN: value = .boolean(raw.boolean)
        default: value = .dateTime(text)
        }
        append(key: key, node: TOMLDocument.Node(value: value, line: line, column: column))
    }

    /// Closes containers until the innermost open one is the parent of a node at `depth`.
    private mutating func close(toDepth depth: Int) {
        while stack.count > depth {
            let done = stack.removeLast()
            let value: TOMLDocument.Value = done.isTable ? .table(done.entries) : .array(done.elements)
            append(key: done.key, node: TOMLDocument.Node(value: value, line: done.line, column: done.column))
        }
    }

    private mutating func append(key: String?, node: TOMLDocument.Node) {
        if let key, stack[stack.count - 1].isTable {
            stack[stack.count - 1].entries.append((key, node))
        } else {
            stack[stack.count - 1].elements.append(node)
        }
    }

    mutating func finish() -> [(key: String, node: TOMLDocument.Node)] {
        close(toDepth: 1)
        return stack[0].entries
    }
}
