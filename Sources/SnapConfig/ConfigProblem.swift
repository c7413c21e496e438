/// One thing wrong with a config file, located by line and key.
public struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    /// The dotted key path, such as `processing.quality`, or `syntax` for a TOML syntax error.
    public var key: String
    public var message: String
    /// What would be accepted, in words.
    public var expected: String

    public init(line: Int, key: String, message: String, expected: String) {
        self.line = line
        self.key = key
        self.message = message
        self.expected = expected
    }

    /// `LINE: key.path: what is wrong (what is expected)`; `check-config` puts the file name in front.
    public var description: String {
        "\(line): \(key): \(message) (\(expected))"
    }
}

/// A config file that cannot be used, with every problem found in it.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var problems: [ConfigProblem]

    public init(file: String, problems: [ConfigProblem]) {
        self.file = file
        self.problems = problems
    }

    /// One `FILE:LINE: key.path: what is wrong (what is expected)` line per problem.
    public var lines: [String] {
        problems.map { "\(file):\($0)" }
    }

    public var description: String { lines.joined(separator: "\n") }
}
