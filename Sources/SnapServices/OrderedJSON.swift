import Foundation

/// A JSON value whose objects keep their keys in the order written.
///
/// Foundation's `JSONSerialization` writes a dictionary's keys in hash order (or sorted), and the order of
/// a strict `json_schema`'s properties is the order a model writes its answer in (OpenAI's structured
/// outputs, llama.cpp's and Ollama's grammars): the schema's order is a decision, so the request is built
/// from this instead (docs/ai-service.md).
public indirect enum OrderedJSON: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral
{
    case object([(String, OrderedJSON)])
    case array([OrderedJSON])
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(arrayLiteral elements: OrderedJSON...) { self = .array(elements) }

    public static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The value as compact JSON text.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// The value as compact JSON, UTF-8.
    public var bytes: [UInt8] { Array(text.utf8) }

    private func write(to out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.quote(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .string(let string): Self.quote(string, to: &out)
        case .integer(let integer): out += String(integer)
        case .number(let number): out += number.isFinite ? "\(number)" : "null"
        case .bool(let bool): out += bool ? "true" : "false"
        case .null: out += "null"
        }
    }

    /// RFC 8259 §7: the quotation mark, the reverse solidus and the control characters are escaped.
    private static func quote(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
