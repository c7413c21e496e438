import Foundation
import SnapConfig
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

    /// Every time zone the station knows, by its IANA name.
    static let timeZones = TimeZone.knownTimeZoneIdentifiers.sorted()

    /// The time zone: the system's, or one of the zones the station knows; the page's script names the
    /// phone's (`data-phone-zone`), and takes it where `offersPhoneZone`.
    func timeZoneRow(_ lock: (disabled: HTML, note: HTML), echo: FormEcho) -> Row {
        let (words, now, base, pick) = (words, now, base, offersPhoneZone && now.timeZone.isEmpty)
        return Row(
            section: .language,
            field: {
                let system = TimeZone.current.identifier
                let chosen = echo.value("time_zone", now.timeZone)
                // The zone in force and the config's are offered even where the list lacks their name ("UTC").
                let named = Set([now.timeZone, base.timeZone].filter { !$0.isEmpty && !Self.timeZones.contains($0) })
                let options = (Self.timeZones + named.sorted()).map { zone -> HTML in
                    "<option value=\"\(zone)\"\(chosen == zone ? " selected" : "" as HTML)>\(zone)</option>"
                }
                return """
                    <label>\(words("page.settings.time_zone")) <select name="time_zone"\(echo.attributes("time_zone")) \
                    data-phone-zone="time_zone-phone" data-pick="\(pick ? "1" : "0")"\(lock.disabled)>\
                    <option value=""\(chosen.isEmpty ? " selected" : "" as HTML)>\(words("page.settings.time_zone_system", ["zone": system]))</option>\
                    \(options)</select>\(lock.note)</label>\(echo.message("time_zone"))
                    <small id="time_zone-phone" data-text="\(words("page.settings.time_zone_phone"))" hidden></small>
                    <small class="hint">\(words("page.settings.restart_hint"))</small>
                    """
            },
            read: { form, chosen throws(FormProblem) in
                guard let zone = form["time_zone"] else { return }
                guard zone.isEmpty || TimeZone(identifier: zone) != nil else {
                    throw FormProblem(
                        words("page.settings.problem.time_zone", ["value": String(zone.prefix(40))]), field: "time_zone"
                    )
                }
                keep(zone, at: \.timeZone, over: base.timeZone, in: &chosen)
            },
            said: { owner in
                owner.timeZone.map {
                    words("page.settings.summary.time_zone", ["zone": $0.isEmpty ? TimeZone.current.identifier : $0])
                }
            })
    }

    /// The AI service: its address (as `ai.base_url` is checked) and its model, kept together.
    func aiServiceRow(_ lock: (disabled: HTML, note: HTML), echo: FormEcho) -> Row {
        let (words, now, base) = (words, now, base)
        return Row(
            section: .ai,
            field: {
                """
                <label class="wide">\(words("page.settings.ai_address")) <input type="url" name="ai_base_url"\(echo.attributes("ai_base_url")) \
                value="\(echo.value("ai_base_url", now.aiService.baseURL))" required spellcheck="false" autocomplete="off"\(lock.disabled)></label>\
                \(echo.message("ai_base_url"))
                <label>\(words("page.settings.ai_model")) <input name="ai_model"\(echo.attributes("ai_model")) \
                value="\(echo.value("ai_model", now.aiService.model))" required maxlength="100" spellcheck="false" autocomplete="off"\(lock.disabled)>\
                \(lock.note)</label>\(echo.message("ai_model"))
                <small class="hint">\(words("page.settings.ai_hint"))</small>
                """
            },
            read: { form, chosen throws(FormProblem) in
                guard let address = form["ai_base_url"], let model = form["ai_model"] else { return }
                var reading = FormReading()
                var url = address.trimmingCharacters(in: .whitespacesAndNewlines)
                while url.hasSuffix("/") { url.removeLast() }
                reading.read(()) { () throws(FormProblem) in
                    switch StationConfig.aiAddressProblem(url) {
                    case .notHTTP?:
                        throw FormProblem(
                            words("page.settings.problem.ai_address", ["value": String(url.prefix(60))]),
                            field: "ai_base_url")
                    case .clearOverInternet?:
                        throw FormProblem(words("page.settings.problem.ai_clear"), field: "ai_base_url")
                    case nil: break
                    }
                }
                let name = model.trimmingCharacters(in: .whitespacesAndNewlines)
                reading.read(()) { () throws(FormProblem) in
                    guard !name.isEmpty, name.count <= 100, !name.contains(where: \.isWhitespace) else {
                        throw FormProblem(words("page.settings.problem.ai_model"), field: "ai_model")
                    }
                }
                try reading.check()
                keep(AIService(baseURL: url, model: name), at: \.aiService, over: base.aiService, in: &chosen)
            },
            said: { owner in
                owner.aiService.map {
                    words("page.settings.summary.ai", ["address": $0.baseURL, "model": $0.model])
                }
            })
    }
}
