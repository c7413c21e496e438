import Foundation
import SnapCore
import SnapImaging
import SnapStore

extension WebApp {
    func settingsPage(_ visitor: Visitor, message: String?, status: Int = 200) throws -> WebReply {
        let owner = try store.runtimeSettings()
        let now = rule.inForce(owner)
        func lock(_ key: RuntimeSettings.Key) -> (disabled: HTML, note: HTML) {
            rule.locked.contains(key)
                ? (" disabled", " <small class=\"locked\">locked by the config file (\(key.rawValue))</small>")
                : ("", "")
        }
        let dietary = DietaryPreference.allCases.map { preference -> HTML in
            "<label><input type=\"checkbox\" name=\"dietary\" value=\"\(preference.rawValue)\"\(now.dietaryPreferences.contains(preference) ? " checked" : "")\(lock(.dietary).disabled)> \(preference.rawValue)</label>"
        }
        let filters = PhotoFilter.allCases.map { filter -> HTML in
            "<option value=\"\(filter.rawValue)\"\(filter == now.filter ? " selected" : "")>\(filter.rawValue)</option>"
        }
        // The mode the station is in now (the mode button may have switched it since).
        let current = rule.locked.contains(.mode) ? now.mode : link.status().mode
        let modes = now.modes.map { mode -> HTML in
            "<option value=\"\(mode.rawValue)\"\(mode == current ? " selected" : "")>\(mode.rawValue)</option>"
        }
        let cameras = rule.cameras
        let cameraOptions = cameras.enumerated().map { index, camera -> HTML in
            "<option value=\"\(index)\"\(index == now.camera ? " selected" : "")>\(index + 1). \(camera)</option>"
        }
        let cameraField: HTML =
            cameras.count > 1
            ? "<label>Camera <select name=\"camera\"\(lock(.camera).disabled)>\(cameraOptions)</select>\(lock(.camera).note)</label>"
            : "<small>The camera: \(cameras[0]) (\(config.camera.id)), the only one configured.</small>"
        let intensity = Form.format(now.intensity)
        let countdownRange = SettingsInForce.countdownRange
        let flashField: HTML =
            rule.flashWired
            ? "<label><input type=\"checkbox\" name=\"flash\" value=\"1\"\(now.flash ? " checked" : "")\(lock(.flash).disabled)> flash LED during the countdown\(lock(.flash).note)</label>"
            : "<small>No flash LED is wired (gpio.led_line).</small>"
        let saved = visitor.form["saved"].map { _ in "Saved. The station uses it from now on." }
        return page(
            "Settings", status: status,
            """
            \(notice(message, problem: true))\(notice(saved))
            <p>These are kept on the station over the config file's values (\(owner == RuntimeSettings() ? "none is changed now" : "changed: \(owner.summary)")).</p>
            <form method="post" action="/settings" class="settings">\(csrfField(visitor))
            <fieldset><legend>Dietary preferences\(lock(.dietary).note)</legend>\(dietary)
            <input type="hidden" name="dietary_shown" value="1"></fieldset>
            <fieldset><legend>Photo filter</legend>
            <label>Filter <select name="filter" id="filter"\(lock(.filter).disabled)>\(filters)</select>\(lock(.filter).note)</label>
            <label>Intensity <input type="range" name="intensity" id="intensity" min="0" max="1" step="0.05" value="\(intensity)"\(lock(.intensity).disabled)>\
            <output id="intensity-value">\(intensity)</output>\(lock(.intensity).note)</label>
            <small>0 leaves the photo as it is.</small>
            <div class="preview"><figure><img src="/settings/preview.jpg?which=before" alt="The last photo before the filter" width="240">\
            <figcaption>before</figcaption></figure>\
            <figure><img id="after" src="/settings/preview.jpg?which=after&amp;filter=\(now.filter.rawValue)&amp;intensity=\(intensity)" alt="The last photo with the filter" width="240">\
            <figcaption>after</figcaption></figure></div>
            </fieldset>
            <fieldset><legend>Capture</legend>
            \(flashField)
            <label>Countdown <input name="countdown" type="number" min="\(countdownRange.lowerBound)" max="\(countdownRange.upperBound)" value="\(now.countdownSeconds)"\(lock(.countdown).disabled)> s\(lock(.countdown).note)</label>
            <label>Mode <select name="mode"\(lock(.mode).disabled)>\(modes)</select>\(lock(.mode).note)</label>
            \(cameraField)
            </fieldset>
            <div class="buttons"><button type="submit">Save</button>
            <button type="submit" name="reset" value="1" class="secondary">Use the config file's values</button></div>
            </form>
            """)
    }

    /// Stores what differs from the config (a locked setting is not taken), and tells the station. The
    /// mode chosen goes to the station even when it is the config's (the mode button may have left it).
    func saveSettings(_ visitor: Visitor) throws -> WebReply {
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
                        throw FormProblem("\"\(raw.prefix(30))\" is not a dietary preference")
                    }
                    dietary.insert(preference)
                }
                if form["dietary_shown"] != nil, dietary != base.dietaryPreferences {
                    chosen.dietaryPreferences = dietary
                }
                if let raw = form["filter"] {
                    guard let filter = PhotoFilter(rawValue: raw) else {
                        throw FormProblem("\"\(raw.prefix(30))\" is not a filter")
                    }
                    if filter != base.filter { chosen.filter = filter }
                }
                if form["intensity"] != nil {
                    let intensity = try form.number(
                        "intensity", label: "The intensity", in: SettingsInForce.intensityRange)
                    if intensity != base.intensity { chosen.intensity = intensity }
                }
                if form["countdown"] != nil {
                    let seconds = try form.int(
                        "countdown", label: "The countdown", in: SettingsInForce.countdownRange)
                    if seconds != base.countdownSeconds { chosen.countdownSeconds = seconds }
                }
                // A checkbox says nothing when unticked: the flash is off when the form came without it.
                if rule.offers(.flash) {
                    let flash = form["flash"] != nil
                    if flash != base.flash { chosen.flash = flash }
                }
                if form["camera"] != nil {
                    let camera = try form.int("camera", label: "The camera", in: 0...(rule.cameras.count - 1))
                    if camera != base.camera { chosen.camera = camera }
                }
                mode = nil
                if let raw = form["mode"] {
                    guard let wanted = StationMode(rawValue: raw), rule.inForce(chosen).modes.contains(wanted) else {
                        throw FormProblem("\"\(raw.prefix(30))\" is not a mode this station has")
                    }
                    if wanted != base.mode { chosen.mode = wanted }
                    mode = wanted
                }
            } catch {
                return try settingsPage(visitor, message: "Not saved: \(error.message).", status: 400)
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
        var image = link.lastCapture()
        if image == nil, let latest = try store.latestPhoto(),
            let bytes = try? Data(contentsOf: URL(fileURLWithPath: latest.files.photo))
        {
            image = try? JPEG.decode(Array(bytes), minimumLongestSide: 480)
        }
        guard var image else {
            throw WebProblem.notFound("There is no photo yet: take one at the station first.")
        }
        image = image.downscaled(toFit: 480)
        if form["which"] == "after" {
            let filter = PhotoFilter(rawValue: form["filter"] ?? "") ?? config.processing.filter
            let asked = SettingsInForce(
                filter: filter,
                intensity: (try? form.number("intensity", label: "intensity", in: SettingsInForce.intensityRange)) ?? 0)
            if let filter = asked.photoFilter { image = filter.apply(to: image, intensity: asked.intensity) }
        }
        let jpeg: [UInt8]
        do {
            jpeg = try JPEG.encode(image, quality: 80)
        } catch {
            throw WebProblem(500, "No preview", "\(error)")
        }
        return WebReply(headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store")], body: jpeg)
    }
}
