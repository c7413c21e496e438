import SnapCore
import SnapText

/// The settings page's form as rows, one per setting (`RuntimeSettings.Key`): the page draws its fields,
/// reads the form and says what the owner changed by looping over the keys, and `row(_:)` is the one
/// switch a new setting adds its field to.
struct SettingsForm {
    /// Where a field sits on the page, in the page's order.
    enum Section: CaseIterable {
        case dietary, photo, capture, goals, language, ai, home, notices
    }

    /// One setting on the page.
    struct Row {
        /// Nil: not on this form (the groups: the Group section keeps them).
        var section: Section?
        /// The field with the value in force; "" where the station has nothing to choose.
        var field: () -> HTML
        /// Reads the form's value into `chosen` where it differs from the config's.
        var read: (Form, inout RuntimeSettings) throws(FormProblem) -> Void
        /// The owner's value as the page says it; nil where the owner kept the config's.
        var said: (RuntimeSettings) -> String?
    }

    let rule: SettingsRule
    let words: Words
    /// The station now: the settings in force, and the mode it is in (the mode button may have left it).
    let station: StationStatus
    /// `camera.id`, for the line that names the only camera.
    let cameraID: String
    /// What a form that failed sent, drawn again in place of the values in force; each field's id is its
    /// name.
    var echo = FormEcho(prefix: "")
    /// The phone's time zone offered (the walk-through); "Save and send a test", "Save and try" where possible.
    var offersPhoneZone = false, offersNoticeTest = false, offersBrokerTrial = false

    /// The settings in force, and the config's.
    var now: SettingsInForce { station.inForce }
    var base: SettingsInForce { rule.inForce(RuntimeSettings()) }

    /// `raw` as one of `Value`'s choices (of `among`, where given), or the problem `problem` says with it
    /// (at `field`).
    func choice<Value: RawRepresentable<String> & Equatable>(
        _ raw: String, among: [Value]? = nil, problem: String, field: String? = nil
    ) throws(FormProblem) -> Value {
        guard let value = Value(rawValue: raw), among?.contains(value) ?? true else {
            throw FormProblem(words(problem, ["value": String(raw.prefix(30))]), field: field)
        }
        return value
    }

    /// `disabled` and a note for a setting the config locks.
    func lock(_ key: RuntimeSettings.Key) -> (disabled: HTML, note: HTML) {
        rule.locked.contains(key)
            ? (" disabled", " <small class=\"locked\">\(words("page.settings.locked", ["key": key.rawValue]))</small>")
            : ("", "")
    }

    /// The fields of `section`, in the keys' order.
    func fields(_ section: Section) -> HTML {
        let fields = RuntimeSettings.Key.allCases.map(row).filter { $0.section == section }.map { $0.field() }
        return "\(fields)"
    }

    /// The owner's settings the form asks for, and the mode it asks to be in now (nil: the config locks it);
    /// read whole, so that a failed form marks each wrong field.
    func read(_ form: Form) throws(FormProblem) -> (RuntimeSettings, mode: StationMode?) {
        var chosen = RuntimeSettings()
        var reading = FormReading()
        // In the page's order, so that the summary lists and the focus finds the wrong fields as they stand.
        let rows = RuntimeSettings.Key.allCases.map(row)
        let order = Section.allCases.map { section in rows.filter { $0.section == section } }.joined()
        for row in order + rows.filter({ $0.section == nil }) {
            reading.read(()) { () throws(FormProblem) in try row.read(form, &chosen) }
        }
        try reading.check()
        let wanted = rule.locked.contains(.mode) ? nil : form["mode"].flatMap(StationMode.init(rawValue:))
        return (rule.kept(chosen), wanted)
    }

    /// The owner's values for `keys` alone, as a step of the walk-through sends them (`SettingsChange.part`).
    func read(_ form: Form, only keys: [RuntimeSettings.Key]) throws(FormProblem) -> RuntimeSettings {
        var chosen = RuntimeSettings()
        var reading = FormReading()
        for key in keys where !rule.locked.contains(key) {
            reading.read(()) { () throws(FormProblem) in try row(key).read(form, &chosen) }
        }
        try reading.check()
        return chosen
    }

    /// What the owner changed, as `RuntimeSettings.summary` writes it for the log, in the page's language.
    func said(_ owner: RuntimeSettings) -> String {
        RuntimeSettings.Key.allCases.compactMap { row($0).said(owner) }.joined(separator: ", ")
    }

    func row(_ key: RuntimeSettings.Key) -> Row {
        // A locked field is disabled, so the form does not send it: it shows the value in force.
        let echo = rule.locked.contains(key) ? FormEcho(prefix: "") : echo
        let (words, now, base, lock) = (words, now, base, lock(key))
        switch key {
        case .dietary:
            return Row(
                section: .dietary,
                field: {
                    let boxes = DietaryPreference.allCases.map { preference -> HTML in
                        let ticked = echo.checked(
                            "dietary", value: preference.rawValue, now.dietaryPreferences.contains(preference))
                        return
                            "<label><input type=\"checkbox\" name=\"dietary\" value=\"\(preference.rawValue)\"\(ticked)\(lock.disabled)> \(words.dietary(preference))</label>"
                    }
                    return "\(boxes)<input type=\"hidden\" name=\"dietary_shown\" value=\"1\">\(lock.note)"
                },
                read: { form, chosen throws(FormProblem) in
                    guard form["dietary_shown"] != nil else { return }
                    var dietary = Set<DietaryPreference>()
                    for raw in form.all("dietary") {
                        dietary.insert(try choice(raw, problem: "page.settings.problem.dietary"))
                    }
                    keep(dietary, at: \.dietaryPreferences, over: base.dietaryPreferences, in: &chosen)
                },
                said: { owner in
                    owner.dietaryPreferences.map { dietary in
                        let names = dietary.sorted { $0.rawValue < $1.rawValue }.map(words.dietary)
                        return words("page.settings.summary.dietary", ["preferences": names.joined(separator: "+")])
                    }
                })
        case .filter:
            return oneOf(
                "filter", \.filter, PhotoFilter.allCases, current: now.filter, config: base.filter, in: .photo,
                label: "page.settings.filter",
                problem: "page.settings.problem.filter", lock: lock, named: words.photoFilter
            ) { words("page.settings.summary.filter", ["filter": words.photoFilter($0)]) }
        case .intensity:
            return Row(
                section: .photo,
                field: {
                    let intensity = echo.value("intensity", Form.format(now.intensity))
                    let shown = Double(intensity).map(words.number) ?? intensity
                    return """
                        <label>\(words("page.settings.intensity")) <input type="range" name="intensity"\(echo.attributes("intensity")) min="0" max="1" step="0.05" value="\(intensity)"\(lock.disabled)>\
                        <output id="intensity-value" data-decimal="\(words("number.decimal"))">\(shown)</output>\(lock.note)</label>\(echo.message("intensity"))
                        <small>\(words("page.settings.intensity_hint"))</small>
                        """
                },
                read: { form, chosen throws(FormProblem) in
                    let label = words("page.settings.field.intensity")
                    keep(
                        form["intensity"] == nil
                            ? nil : try form.number("intensity", label: label, in: SettingsInForce.intensityRange),
                        at: \.intensity, over: base.intensity, in: &chosen)
                },
                said: {
                    $0.intensity.map { words("page.settings.summary.intensity", ["intensity": words.number($0)]) }
                })
        case .flash:
            let offered = rule.offers(.flash)
            return Row(
                section: .capture,
                field: {
                    rule.flashWired
                        ? "<label><input type=\"checkbox\" name=\"flash\" value=\"1\"\(echo.checked("flash", now.flash))\(lock.disabled)> \(words("page.settings.flash"))\(lock.note)</label>"
                        : "<small>\(words("page.settings.no_flash"))</small>"
                },
                read: { form, chosen throws(FormProblem) in
                    // A checkbox says nothing when unticked: the flash is off when the form came without it.
                    keep(offered ? form["flash"] != nil : nil, at: \.flash, over: base.flash, in: &chosen)
                },
                said: {
                    $0.flash.map { words($0 ? "page.settings.summary.flash_on" : "page.settings.summary.flash_off") }
                })
        case .countdown:
            return Row(
                section: .capture,
                field: {
                    let range = SettingsInForce.countdownRange
                    return
                        "<label>\(words("page.settings.countdown")) <input name=\"countdown\"\(echo.attributes("countdown")) type=\"number\" required min=\"\(range.lowerBound)\" max=\"\(range.upperBound)\" value=\"\(echo.value("countdown", "\(now.countdownSeconds)"))\"\(lock.disabled)> \(words("page.settings.seconds"))\(lock.note)</label>\(echo.message("countdown"))"
                },
                read: { form, chosen throws(FormProblem) in
                    let label = words("page.settings.field.countdown")
                    keep(
                        form["countdown"] == nil
                            ? nil : try form.int("countdown", label: label, in: SettingsInForce.countdownRange),
                        at: \.countdownSeconds, over: base.countdownSeconds, in: &chosen)
                },
                said: {
                    $0.countdownSeconds.map { words("page.settings.summary.countdown", ["seconds": words.integer($0)]) }
                })
        case .mode:
            // The mode the station is in now (the mode button may have switched it), of those it has now.
            return oneOf(
                "mode", \.mode, now.modes, current: rule.locked.contains(.mode) ? now.mode : station.mode,
                config: base.mode, in: .capture, label: "page.settings.mode", problem: "page.settings.problem.mode",
                lock: lock, named: words.mode
            ) { words("page.settings.summary.mode", ["mode": words.mode($0)]) }
        case .camera:
            let (cameras, cameraID) = (rule.cameras, cameraID)
            return Row(
                section: .capture,
                field: {
                    let options = cameras.enumerated().map { index, camera -> HTML in
                        "<option value=\"\(index)\"\(echo.selected("camera", "\(index)", "\(now.camera)"))>\(index + 1). \(camera)</option>"
                    }
                    return cameras.count > 1
                        ? "<label>\(words("page.settings.camera")) <select name=\"camera\"\(echo.attributes("camera"))\(lock.disabled)>\(options)</select>\(lock.note)</label>\(echo.message("camera"))"
                        : "<small>\(words("page.settings.only_camera", ["camera": cameras[0], "id": cameraID]))</small>"
                },
                read: { form, chosen throws(FormProblem) in
                    guard form["camera"] != nil else { return }
                    let camera = try form.int(
                        "camera", label: words("page.settings.field.camera"), in: 0...(cameras.count - 1))
                    keep(camera, at: \.camera, over: base.camera, in: &chosen)
                },
                said: { $0.camera.map { words("page.settings.summary.camera", ["n": words.integer($0 + 1)]) } })
        case .groups:
            return Row(
                section: nil, field: { "" }, read: { _, _ in },
                said: { owner in
                    owner.groups.map {
                        $0.isEmpty
                            ? words("page.settings.summary.no_group")
                            : words("page.settings.summary.groups", ["groups": $0.joined(separator: ", ")])
                    }
                })
        case .language:
            var row = oneOf(
                "language", \.language, Language.allCases, current: now.language, config: base.language,
                in: .language, label: "page.settings.language",
                problem: "page.settings.problem.language", lock: lock, named: \.name
            ) { words("page.settings.summary.language", ["language": $0.name]) }
            let (offered, select) = (rule.offers(.language), row.field)
            row.field = { offered ? "\(select())\n<small>\(words("page.settings.language_hint"))</small>" : "" }
            return row
        case .goals:
            let offered = rule.offers(.goals)
            return Row(
                section: .goals,
                field: {
                    let inputs = Self.goalFields.map { field -> HTML in
                        """
                        <label>\(words(field.label)) <input name="\(field.name)"\(echo.attributes(field.name)) type="number" required min="0" \
                        max="\(field.range.upperBound)" value="\(echo.value(field.name, "\(now.goals[keyPath: field.value])"))"\(lock.disabled)> \
                        \(field.name == "goal_kcal" ? "kcal" : "g")</label>\(echo.message(field.name))
                        """
                    }
                    return "\(inputs)\(lock.note)<small>\(words("page.settings.goals_hint"))</small>"
                },
                read: { form, chosen throws(FormProblem) in
                    guard offered, form["goal_kcal"] != nil else { return }
                    var goals = Macros.zero
                    var reading = FormReading()
                    for field in Self.goalFields {
                        goals[keyPath: field.value] = reading.read(0) { () throws(FormProblem) in
                            try form.int(field.name, label: words(field.label), in: field.range)
                        }
                    }
                    try reading.check()
                    keep(goals, at: \.goals, over: base.goals, in: &chosen)
                },
                said: { $0.goals.map { words("page.settings.summary.goals", ["goals": words.goals($0)]) } })
        case .quietHours:
            let (from, until) = now.quietHours.hours.map(\.ends) ?? ("", "")
            return Row(
                section: .capture,
                field: {
                    """
                    <label>\(words("page.settings.quiet")) <input type="time" name="quiet_from"\(echo.attributes("quiet_from")) value="\(echo.value("quiet_from", from))"\(lock.disabled)></label>\(echo.message("quiet_from"))
                    <label>\(words("page.settings.quiet_until")) <input type="time" name="quiet_until"\(echo.attributes("quiet_until")) value="\(echo.value("quiet_until", until))"\(lock.disabled)>\(lock.note)</label>
                    <small>\(words("page.settings.quiet_hint"))</small>
                    """
                },
                read: { form, chosen throws(FormProblem) in
                    guard let from = form["quiet_from"], let until = form["quiet_until"] else { return }
                    let text = from.isEmpty && until.isEmpty ? "" : "\(from)-\(until)"
                    guard let quiet = QuietHours(text) else {
                        throw FormProblem(
                            words("page.settings.problem.quiet", ["value": String(text.prefix(30))]),
                            field: "quiet_from")
                    }
                    keep(quiet, at: \.quietHours, over: base.quietHours, in: &chosen)
                },
                said: { owner in
                    owner.quietHours.map {
                        $0.hours == nil
                            ? words("page.settings.summary.no_quiet")
                            : words("page.settings.summary.quiet", ["hours": $0.description])
                    }
                })
        case .timeZone: return timeZoneRow(lock, echo: echo)
        case .groupEmail:  // made or signed in to on the Keys page (`KeysRoom.account`), with its password
            return Row(
                section: nil, field: { "" }, read: { _, _ in },
                said: { $0.groupEmail.map { words("page.settings.summary.account", ["email": $0]) } })
        case .aiService: return aiServiceRow(lock, echo: echo)
        case .notices: return noticesRow(lock, echo: echo)
        case .mqtt: return mqttRow(lock, echo: echo)
        }
    }
}
