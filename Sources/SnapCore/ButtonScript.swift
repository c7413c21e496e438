/// A timed list of button gestures for the simulated buttons: "2s press, 10s hold, 1.5s mode".
///
/// Each step waits its delay after the previous step, then makes its gesture; tests and demos use it to
/// run the station without anyone at the keyboard.
public struct ButtonScript: Sendable, Hashable {
    public struct Step: Sendable, Hashable {
        public var delay: Duration
        public var gesture: ButtonGesture
    }

    public var steps: [Step]

    /// Parses the script; nil when it is not valid (see `problem(in:)` for why).
    public init?(_ text: String) {
        guard Self.problem(in: text) == nil else { return nil }
        steps = Self.parse(text).compactMap { try? $0.get() }
    }

    /// Why `text` is not a valid script, or nil when it is (an empty script is valid and does nothing).
    public static func problem(in text: String) -> String? {
        for result in parse(text) {
            if case .failure(let problem) = result { return problem.text }
        }
        return nil
    }

    private struct Problem: Error { var text: String }

    private static func parse(_ text: String) -> [Result<Step, Problem>] {
        text.split(separator: ",").map { raw in
            let words = raw.split(separator: " ").map(String.init)
            guard words.count == 2 else {
                return .failure(Problem(text: "\"\(raw.trimmed)\" is not \"DELAY GESTURE\""))
            }
            guard words[0].hasSuffix("s"), let seconds = Double(words[0].dropLast()), seconds >= 0, seconds < 86400
            else { return .failure(Problem(text: "\"\(words[0])\" is not a delay in seconds such as \"2s\"")) }
            guard let gesture = ButtonGesture(rawValue: words[1]) else {
                return .failure(Problem(text: "\"\(words[1])\" is not press, hold, mode or pair"))
            }
            return .success(Step(delay: .milliseconds(Int64(seconds * 1000)), gesture: gesture))
        }
    }
}

extension Substring {
    fileprivate var trimmed: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
