/// A value kept as its text (a JSON string), and read back only through its parser: a stored or sent
/// text that is not one is refused with what it should have been, not taken as something else.
public protocol TextCoded: Codable {
    /// The value of `text`, or nil when it is not one.
    init?(parsing text: String)
    /// What the parser reads back.
    var text: String { get }
    /// What a value is, for a refusal ("a photo id").
    static var textMeaning: String { get }
}

extension TextCoded {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "not \(Self.textMeaning): \(text.debugDescription)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
