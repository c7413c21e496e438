import SnapCore
import SnapText

/// What several of the settings form's rows are made of: a value kept only where it is not the config's,
/// a choice from a list, the goals' four fields.
extension SettingsForm {
    /// Keeps `value` at `owner` in `chosen` where it is not the config's `config` (nil: the form had no
    /// such field).
    func keep<Value: Equatable>(
        _ value: Value?, at owner: WritableKeyPath<RuntimeSettings, Value?>, over config: Value,
        in chosen: inout RuntimeSettings
    ) {
        if let value, value != config { chosen[keyPath: owner] = value }
    }

    /// The row of a setting chosen from a list (`options`), named `name` in the form and kept at `owner`:
    /// `current` is selected, and a choice other than the config's (`config`) is kept.
    func oneOf<Value: RawRepresentable<String> & Equatable>(
        _ name: String, _ owner: WritableKeyPath<RuntimeSettings, Value?>, _ options: [Value], current: Value,
        config: Value, in section: Section, label: String, problem: String, lock: (disabled: HTML, note: HTML),
        named: @escaping (Value) -> String, said: @escaping (Value) -> String
    ) -> Row {
        Row(
            section: section,
            field: { [words, echo] in
                let list = options.map { option -> HTML in
                    "<option value=\"\(option.rawValue)\"\(echo.selected(name, option.rawValue, current.rawValue))>\(named(option))</option>"
                }
                return
                    "<label>\(words(label)) <select name=\"\(name)\"\(echo.attributes(name))\(lock.disabled)>\(list)</select>\(lock.note)</label>\(echo.message(name))"
            },
            read: { form, chosen throws(FormProblem) in
                guard let raw = form[name] else { return }
                let value = try choice(raw, among: options, problem: problem, field: name)
                keep(value, at: owner, over: config, in: &chosen)
            },
            said: { $0[keyPath: owner].map(said) })
    }

    /// The goals' fields: the form's name, the label's key, the range it takes and the value it sets.
    static var goalFields: [(name: String, label: String, range: ClosedRange<Int>, value: WritableKeyPath<Macros, Int>)]
    {
        [
            ("goal_kcal", "page.settings.goal_kcal", SettingsInForce.kcalGoalRange, \.calories),
            ("goal_protein", "page.settings.goal_protein", SettingsInForce.gramsGoalRange, \.protein),
            ("goal_carbs", "page.settings.goal_carbs", SettingsInForce.gramsGoalRange, \.carbs),
            ("goal_fats", "page.settings.goal_fats", SettingsInForce.gramsGoalRange, \.fats),
        ]
    }
}
