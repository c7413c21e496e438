import Foundation
import SnapCore
import SnapImaging
import SnapStore
import SnapText

extension WebApp {
    func settingsPage(_ visitor: Visitor, message: String?, status: Int = 200) throws -> WebReply {
        let words = self.words
        let owner = try store.runtimeSettings()
        let now = rule.inForce(owner)
        func lock(_ key: RuntimeSettings.Key) -> (disabled: HTML, note: HTML) {
            rule.locked.contains(key)
                ? (
                    " disabled",
                    " <small class=\"locked\">\(words("page.settings.locked", ["key": key.rawValue]))</small>"
                )
                : ("", "")
        }
        let dietary = DietaryPreference.allCases.map { preference -> HTML in
            "<label><input type=\"checkbox\" name=\"dietary\" value=\"\(preference.rawValue)\"\(now.dietaryPreferences.contains(preference) ? " checked" : "")\(lock(.dietary).disabled)> \(words.dietary(preference))</label>"
        }
        let filters = PhotoFilter.allCases.map { filter -> HTML in
            "<option value=\"\(filter.rawValue)\"\(filter == now.filter ? " selected" : "")>\(words.photoFilter(filter))</option>"
        }
        // The mode the station is in now (the mode button may have switched it since).
        let current = rule.locked.contains(.mode) ? now.mode : link.status().mode
        let modes = now.modes.map { mode -> HTML in
            "<option value=\"\(mode.rawValue)\"\(mode == current ? " selected" : "")>\(words.mode(mode))</option>"
        }
        let languages = Language.allCases.map { language -> HTML in
            "<option value=\"\(language.rawValue)\"\(language == now.language ? " selected" : "")>\(language.name)</option>"
        }
        let cameras = rule.cameras
        let cameraOptions = cameras.enumerated().map { index, camera -> HTML in
            "<option value=\"\(index)\"\(index == now.camera ? " selected" : "")>\(index + 1). \(camera)</option>"
        }
        let cameraField: HTML =
            cameras.count > 1
            ? "<label>\(words("page.settings.camera")) <select name=\"camera\"\(lock(.camera).disabled)>\(cameraOptions)</select>\(lock(.camera).note)</label>"
            : "<small>\(words("page.settings.only_camera", ["camera": cameras[0], "id": config.camera.id]))</small>"
        let intensity = Form.format(now.intensity)
        let countdownRange = SettingsInForce.countdownRange
        let flashField: HTML =
            rule.flashWired
            ? "<label><input type=\"checkbox\" name=\"flash\" value=\"1\"\(now.flash ? " checked" : "")\(lock(.flash).disabled)> \(words("page.settings.flash"))\(lock(.flash).note)</label>"
            : "<small>\(words("page.settings.no_flash"))</small>"
        let languageField: HTML =
            rule.offers(.language)
            ? """
            <fieldset><legend>\(words("page.settings.language_legend"))</legend>
            <label>\(words("page.settings.language")) <select id="language" name="language"\(lock(.language).disabled)>\(languages)</select>\(lock(.language).note)</label>
            <small>\(words("page.settings.language_hint"))</small>
            </fieldset>
            """ : ""
        let goalFields = Self.goalFields.map { field -> HTML in
            let range = field.name == "goal_kcal" ? SettingsInForce.kcalGoalRange : SettingsInForce.gramsGoalRange
            return """
                <label>\(words(field.label)) <input name="\(field.name)" id="\(field.name)" type="number" min="0" \
                max="\(range.upperBound)" value="\(now.goals[keyPath: field.value])"\(lock(.goals).disabled)> \
                \(field.name == "goal_kcal" ? "kcal" : "g")</label>
                """
        }
        let goalsField: HTML = """
            <fieldset><legend>\(words("page.settings.goals"))\(lock(.goals).note)</legend>\(goalFields)
            <small>\(words("page.settings.goals_hint"))</small></fieldset>
            """
        let saved = visitor.form["saved"].map { _ in words("page.settings.saved") }
        let kept = words(
            "page.settings.kept",
            [
                "changes": owner == RuntimeSettings()
                    ? words("page.settings.none_changed")
                    : words("page.settings.changed", ["settings": changes(owner, words)])
            ])
        return page(
            words("page.settings.title"), status: status,
            """
            \(notice(message, problem: true))\(notice(saved))
            <p>\(kept)</p>
            <form method="post" action="/settings" class="settings">\(csrfField(visitor))
            <fieldset><legend>\(words("page.settings.dietary"))\(lock(.dietary).note)</legend>\(dietary)
            <input type="hidden" name="dietary_shown" value="1"></fieldset>
            <fieldset><legend>\(words("page.settings.photo_filter"))</legend>
            <label>\(words("page.settings.filter")) <select name="filter" id="filter"\(lock(.filter).disabled)>\(filters)</select>\(lock(.filter).note)</label>
            <label>\(words("page.settings.intensity")) <input type="range" name="intensity" id="intensity" min="0" max="1" step="0.05" value="\(intensity)"\(lock(.intensity).disabled)>\
            <output id="intensity-value" data-decimal="\(words("number.decimal"))">\(words.number(now.intensity))</output>\(lock(.intensity).note)</label>
            <small>\(words("page.settings.intensity_hint"))</small>
            <div class="preview"><figure><img src="/settings/preview.jpg?which=before" alt="\(words("page.settings.before_alt"))" width="240">\
            <figcaption>\(words("page.settings.before"))</figcaption></figure>\
            <figure><img id="after" src="/settings/preview.jpg?which=after&amp;filter=\(now.filter.rawValue)&amp;intensity=\(intensity)" alt="\(words("page.settings.after_alt"))" width="240">\
            <figcaption>\(words("page.settings.after"))</figcaption></figure></div>
            </fieldset>
            <fieldset><legend>\(words("page.settings.capture"))</legend>
            \(flashField)
            <label>\(words("page.settings.countdown")) <input name="countdown" type="number" min="\(countdownRange.lowerBound)" max="\(countdownRange.upperBound)" value="\(now.countdownSeconds)"\(lock(.countdown).disabled)> \(words("page.settings.seconds"))\(lock(.countdown).note)</label>
            <label>\(words("page.settings.mode")) <select name="mode"\(lock(.mode).disabled)>\(modes)</select>\(lock(.mode).note)</label>
            \(cameraField)
            </fieldset>
            \(goalsField)
            \(languageField)
            <div class="buttons"><button type="submit">\(words("page.form.save"))</button>
            <button type="submit" name="reset" value="1" class="secondary">\(words("page.settings.reset"))</button></div>
            </form>
            """)
    }

    /// The goals' fields: the form's name, the label's key and the value it sets.
    static var goalFields: [(name: String, label: String, value: WritableKeyPath<Macros, Int>)] {
        [
            ("goal_kcal", "page.settings.goal_kcal", \.calories),
            ("goal_protein", "page.settings.goal_protein", \.protein),
            ("goal_carbs", "page.settings.goal_carbs", \.carbs), ("goal_fats", "page.settings.goal_fats", \.fats),
        ]
    }

    /// What the owner changed, for the page: as `RuntimeSettings.summary` writes it for the log, in the
    /// page's language.
    private func changes(_ owner: RuntimeSettings, _ words: Words) -> String {
        var parts: [String] = []
        if let dietary = owner.dietaryPreferences {
            let names = dietary.sorted { $0.rawValue < $1.rawValue }.map(words.dietary).joined(separator: "+")
            parts.append(words("page.settings.summary.dietary", ["preferences": names]))
        }
        if let filter = owner.filter {
            parts.append(words("page.settings.summary.filter", ["filter": words.photoFilter(filter)]))
        }
        if let intensity = owner.intensity {
            parts.append(words("page.settings.summary.intensity", ["intensity": words.number(intensity)]))
        }
        if let flash = owner.flash {
            parts.append(words(flash ? "page.settings.summary.flash_on" : "page.settings.summary.flash_off"))
        }
        if let seconds = owner.countdownSeconds {
            parts.append(words("page.settings.summary.countdown", ["seconds": words.integer(seconds)]))
        }
        if let mode = owner.mode { parts.append(words("page.settings.summary.mode", ["mode": words.mode(mode)])) }
        if let camera = owner.camera {
            parts.append(words("page.settings.summary.camera", ["n": words.integer(camera + 1)]))
        }
        if let groups = owner.groups {
            parts.append(
                groups.isEmpty
                    ? words("page.settings.summary.no_group")
                    : words("page.settings.summary.groups", ["groups": groups.joined(separator: ", ")]))
        }
        if let language = owner.language {
            parts.append(words("page.settings.summary.language", ["language": language.name]))
        }
        if let goals = owner.goals {
            parts.append(words("page.settings.summary.goals", ["goals": words.goals(goals)]))
        }
        return parts.joined(separator: ", ")
    }

    /// Stores what differs from the config (a locked setting is not taken), and tells the station. The
    /// mode chosen goes to the station even when it is the config's (the mode button may have left it).
    func saveSettings(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let form = visitor.form
        // The groups are not on this form (the Group section keeps them), and a reset keeps them: they
        // are memberships on the group's server, not a preference.
        var chosen = RuntimeSettings(groups: try store.runtimeSettings().groups)
        let base = rule.inForce(RuntimeSettings())
        var mode: StationMode? = base.mode
        if form["reset"] == nil {
            do throws(FormProblem) {
                var dietary = Set<DietaryPreference>()
                for raw in form.all("dietary") {
                    guard let preference = DietaryPreference(rawValue: raw) else {
                        throw FormProblem(words("page.settings.problem.dietary", ["value": String(raw.prefix(30))]))
                    }
                    dietary.insert(preference)
                }
                if form["dietary_shown"] != nil, dietary != base.dietaryPreferences {
                    chosen.dietaryPreferences = dietary
                }
                if let raw = form["filter"] {
                    guard let filter = PhotoFilter(rawValue: raw) else {
                        throw FormProblem(words("page.settings.problem.filter", ["value": String(raw.prefix(30))]))
                    }
                    if filter != base.filter { chosen.filter = filter }
                }
                if form["intensity"] != nil {
                    let intensity = try form.number(
                        "intensity", label: words("page.settings.field.intensity"), in: SettingsInForce.intensityRange)
                    if intensity != base.intensity { chosen.intensity = intensity }
                }
                if form["countdown"] != nil {
                    let seconds = try form.int(
                        "countdown", label: words("page.settings.field.countdown"), in: SettingsInForce.countdownRange)
                    if seconds != base.countdownSeconds { chosen.countdownSeconds = seconds }
                }
                // A checkbox says nothing when unticked: the flash is off when the form came without it.
                if rule.offers(.flash) {
                    let flash = form["flash"] != nil
                    if flash != base.flash { chosen.flash = flash }
                }
                if form["camera"] != nil {
                    let camera = try form.int(
                        "camera", label: words("page.settings.field.camera"), in: 0...(rule.cameras.count - 1))
                    if camera != base.camera { chosen.camera = camera }
                }
                mode = nil
                if let raw = form["mode"] {
                    guard let wanted = StationMode(rawValue: raw), rule.inForce(chosen).modes.contains(wanted) else {
                        throw FormProblem(words("page.settings.problem.mode", ["value": String(raw.prefix(30))]))
                    }
                    if wanted != base.mode { chosen.mode = wanted }
                    mode = wanted
                }
                if rule.offers(.goals), form["goal_kcal"] != nil {
                    var goals = Macros.zero
                    for field in Self.goalFields {
                        let range =
                            field.name == "goal_kcal" ? SettingsInForce.kcalGoalRange : SettingsInForce.gramsGoalRange
                        goals[keyPath: field.value] = try form.int(field.name, label: words(field.label), in: range)
                    }
                    if goals != base.goals { chosen.goals = goals }
                }
                if rule.offers(.language), let raw = form["language"] {
                    guard let language = Language(rawValue: raw) else {
                        throw FormProblem(words("page.settings.problem.language", ["value": String(raw.prefix(30))]))
                    }
                    if language != base.language { chosen.language = language }
                }
            } catch {
                return try settingsPage(
                    visitor, message: words("page.form.not_saved", ["problem": error.message]), status: 400)
            }
        }
        let settings = rule.kept(chosen)
        try store.writingAndWaiting { store throws(StoreError) in try store.saveRuntimeSettings(settings) }
        var told = settings
        if !rule.locked.contains(.mode) { told.mode = mode }
        link.send(.settingsChanged(told))
        logger.info("owner's page: settings \(settings.summary)")
        return .redirect("/settings?saved=1")
    }

    /// The last photo before the filter (`which=before`) or with the filter and intensity asked, at most
    /// 480 px: from the station's last capture in memory, or else from the newest stored photo (which
    /// already carries the filter it was taken with).
    func settingsPreview(_ visitor: Visitor) throws -> WebReply {
        let form = visitor.form
        // The words the request's form already carries: the slider asks for a preview at every stop.
        let words = form.words
        var image = link.lastCapture()
        if image == nil, let latest = try store.latestPhoto(),
            let bytes = try? Data(contentsOf: URL(fileURLWithPath: latest.files.photo))
        {
            image = try? JPEG.decode(Array(bytes), minimumLongestSide: 480)
        }
        guard var image else {
            throw WebProblem.notFound(words("page.settings.no_photo"), words)
        }
        image = image.downscaled(toFit: 480)
        if form["which"] == "after" {
            let filter = PhotoFilter(rawValue: form["filter"] ?? "") ?? config.processing.filter
            let asked = SettingsInForce(
                filter: filter,
                intensity: (try? form.number(
                    "intensity", label: words("page.settings.field.intensity"), in: SettingsInForce.intensityRange))
                    ?? 0)
            if let filter = asked.photoFilter { image = filter.apply(to: image, intensity: asked.intensity) }
        }
        let jpeg: [UInt8]
        do {
            jpeg = try JPEG.encode(image, quality: 80)
        } catch {
            throw WebProblem(500, words("page.settings.no_preview"), "\(error)")
        }
        return WebReply(headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store")], body: jpeg)
    }
}
