import Foundation
import SnapCore
import SnapImaging
import SnapStore
import SnapText

extension SettingsRoom {
    /// The settings page; `echo` draws a form that failed again as it was sent, each wrong field marked.
    /// `tried`: the notices' test just sent, and how it ended; `broker`: the broker just tried.
    func settingsPage(
        _ visitor: Visitor, status: Int = 200, echo: FormEcho = FormEcho(prefix: ""),
        tried: (NoticeSettings, NoticeOutcome)? = nil, broker: (MQTTSettings, BrokerStatus)? = nil
    ) throws -> WebReply {
        let words = self.words
        let station = link.status()
        var form = settingsForm(station, words)
        form.echo = echo
        let owner = station.owner
        let saved = visitor.form["saved"].map {
            words($0 == "restart" ? "page.settings.saved_restart" : "page.settings.saved")
        }
        let kept = words(
            "page.settings.kept",
            [
                "changes": owner == RuntimeSettings()
                    ? words("page.settings.none_changed")
                    : words("page.settings.changed", ["settings": form.said(owner)])
            ])
        // The preview shows the filter and intensity on the form, as sent when it failed.
        let filter = echo.value("filter", station.inForce.filter.rawValue)
        let intensity = echo.value("intensity", Form.format(station.inForce.intensity))
        let language = form.fields(.language)
        return page(
            words("page.settings.title"), status: status,
            """
            \(echo.summary(words))\(notice(saved))\(tried.map(noticeTried) ?? "")\(broker.map(brokerTried) ?? "")
            <p>\(kept)</p>
            <p><a href="/people">\(words("page.settings.people_link", count: try store.household().people.count))</a></p>
            <form method="post" action="/settings" class="settings">\(csrfField(visitor))
            <fieldset><legend>\(words("page.settings.dietary"))</legend>\(form.fields(.dietary))</fieldset>
            <fieldset><legend>\(words("page.settings.photo_filter"))</legend>
            \(form.fields(.photo))
            <div class="preview"><figure><img src="/settings/preview.jpg?which=before" alt="\(words("page.settings.before_alt"))" width="240">\
            <figcaption>\(words("page.settings.before"))</figcaption></figure>\
            <figure><img id="after" src="/settings/preview.jpg?which=after&amp;filter=\(filter)&amp;intensity=\(intensity)" alt="\(words("page.settings.after_alt"))" width="240">\
            <figcaption>\(words("page.settings.after"))</figcaption></figure></div>
            </fieldset>
            <fieldset><legend>\(words("page.settings.capture"))</legend>
            \(form.fields(.capture))
            </fieldset>
            <fieldset><legend>\(words("page.settings.goals"))</legend>\(form.fields(.goals))</fieldset>
            \(language.description.isEmpty ? "" : "<fieldset><legend>\(words("page.settings.language_legend"))</legend>\n\(language)\n</fieldset>" as HTML)
            <fieldset><legend>\(words("page.settings.ai_legend"))</legend>\(form.fields(.ai))</fieldset>
            <fieldset><legend>\(words("page.settings.mqtt_legend"))</legend>\(form.fields(.home))</fieldset>
            <fieldset><legend>\(words("page.settings.notify_legend"))</legend>\(form.fields(.notices))</fieldset>
            <div class="buttons"><button type="submit">\(words("page.form.save"))</button>
            <button type="submit" name="reset" value="1" class="secondary">\(words("page.settings.reset"))</button></div>
            </form>
            <p><a href="/backup">\(words("page.backup.link"))</a> · <a href="/keys">\(words("page.keys.link"))</a></p>
            """)
    }

    /// The settings page's rows, with the values the station holds now.
    private func settingsForm(_ station: StationStatus, _ words: Words) -> SettingsForm {
        var form = SettingsForm(rule: rule, words: words, station: station, cameraID: cameraID)
        form.offersNoticeTest = noticeTrier != nil
        form.offersBrokerTrial = brokerTrier != nil
        return form
    }

    /// How the notices' test ended, in the page's words.
    private func noticeTried(_ settings: NoticeSettings, _ outcome: NoticeOutcome) -> HTML {
        switch outcome {
        case .sent: notice(words("page.settings.notify_tried.sent", ["address": settings.address]))
        case .refused(let reason):
            notice(
                words("page.settings.notify_tried.refused", ["address": settings.address, "reason": reason]),
                problem: true)
        case .failed(let reason):
            notice(
                words("page.settings.notify_tried.failed", ["address": settings.address, "reason": reason]),
                problem: true)
        }
    }

    /// How the broker's trial ended, in the page's words.
    private func brokerTried(_ settings: MQTTSettings, _ status: BrokerStatus) -> HTML {
        let at = ["address": settings.address]
        return switch status {
        case .connected: notice(words("page.settings.mqtt_tried.connected", at))
        case .connecting: notice(words("page.keys.mqtt.connecting"))
        case .refusedCredentials: notice(words("page.keys.mqtt.refused"), problem: true)
        case .refused(let reason): notice(words("page.keys.mqtt.other", ["reason": reason]), problem: true)
        case .unreachable(let reason): notice(words("page.keys.mqtt.unreachable", ["reason": reason]), problem: true)
        }
    }

    /// Hands the settings the form asks for to the station (the state machine keeps them: a locked one
    /// is the config's), and shows them once it has. The mode chosen goes to the station even when it is
    /// the config's (the mode button may have left it); a reset gives every setting on the form back to
    /// the config's.
    func saveSettings(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let asked: (RuntimeSettings, mode: StationMode?)
        if visitor.form["reset"] != nil {
            asked = (RuntimeSettings(), rule.locked.contains(.mode) ? nil : rule.inForce(RuntimeSettings()).mode)
        } else {
            do throws(FormProblem) {
                asked = try settingsForm(link.status(), words).read(visitor.form)
            } catch {
                return .reply(
                    try settingsPage(visitor, status: 400, echo: FormEcho(visitor.form, error, prefix: "")))
            }
        }
        let started = link.status().started
        let test = visitor.form["try_notices"] != nil ? noticeTrier : nil
        let trial = visitor.form["try_mqtt"] != nil ? brokerTrier : nil
        return changing(.form(asked.0, mode: asked.mode)) { status in
            self.logger.info("owner's page: settings \(status.owner.summary)")
            let restarts = !status.inForce.startsDifferently(from: started).isEmpty
            // "Save and try": saved, then the broker now in force tried once (the station takes it at its
            // restart), and its answer shown.
            if let trial, !status.inForce.mqtt.address.isEmpty {
                let mqtt = status.inForce.mqtt
                return .after {
                    let answer = await trial.tryBroker(mqtt)
                    return { .reply(try self.settingsPage(visitor, broker: (mqtt, answer))) }
                }
            }
            // "Save and send a test": saved, then the test sent to the address now in force, and its outcome
            // shown on the settings page.
            guard let test, !status.inForce.notices.address.isEmpty else {
                return .reply(.redirect(restarts ? "/settings?saved=restart" : "/settings?saved=1"))
            }
            let notices = status.inForce.notices
            return .after {
                let outcome = await test.tryNotices(notices, language: status.inForce.language)
                return { .reply(try self.settingsPage(visitor, tried: (notices, outcome))) }
            }
        }
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
            let filter = PhotoFilter(rawValue: form["filter"] ?? "") ?? filter
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

extension PageRoom {
    /// Hands `change` to the state machine (the owner's settings' only writer), and goes on with `then` on
    /// the page's thread once it made it, with the station's status after it.
    func changing(_ change: SettingsChange, then: @escaping @Sendable (StationStatus) throws -> PageStep) -> PageStep {
        delivering(.settingsChanged(change), then: then)
    }

    /// Hands `event` to the station's loop, and goes on with `then` on the page's thread once the loop
    /// handled it, with the station's status after it (503 when the station stopped first).
    func delivering(_ event: Event, then: @escaping @Sendable (StationStatus) throws -> PageStep) -> PageStep {
        .after { [link, words] in
            let status = await link.deliver(event)
            return {
                guard let status else { throw WebProblem(503, words("page.problem.stopping"), "") }
                return try then(status)
            }
        }
    }
}
