import SnapCore
import SnapText

/// The home's broker's row of the settings form (`[mqtt]`): its address, the station's user on it, the
/// protocol version and whether the hub may start the countdown, kept together. The user's password is a
/// key (the Keys page). Taken as the station starts: a change restarts it at its next calm moment.
extension SettingsForm {
    func mqttRow(_ lock: (disabled: HTML, note: HTML), echo: FormEcho) -> Row {
        let (words, now, base, test) = (words, now, base, offersBrokerTrial && lock.disabled.description.isEmpty)
        return Row(
            section: .home,
            field: {
                let mqtt = now.mqtt
                let versions = MQTTSettings.Version.allCases.map { version -> HTML in
                    "<option value=\"\(version.rawValue)\"\(echo.selected("mqtt_version", version.rawValue, mqtt.version.rawValue))>MQTT \(version.rawValue)</option>"
                }
                let button = echo.checked("mqtt_button", value: "1", mqtt.countdownButton)
                return """
                    <label class="wide">\(words("page.settings.mqtt_url")) <input type="text" name="mqtt_url"\(echo.attributes("mqtt_url")) \
                    value="\(echo.value("mqtt_url", mqtt.address))" spellcheck="false" autocomplete="off" inputmode="url" placeholder="mqtt://homeassistant.local"\(lock.disabled)></label>\
                    \(echo.message("mqtt_url"))
                    <label>\(words("page.settings.mqtt_username")) <input type="text" name="mqtt_username"\(echo.attributes("mqtt_username")) \
                    value="\(echo.value("mqtt_username", mqtt.username))" spellcheck="false" autocomplete="off"\(lock.disabled)></label>
                    <label>\(words("page.settings.mqtt_version")) <select name="mqtt_version"\(echo.attributes("mqtt_version"))\(lock.disabled)>\(versions)</select></label>
                    <label><input type="checkbox" name="mqtt_button" value="1"\(button)\(lock.disabled)> \(words("page.settings.mqtt_button"))</label>\(lock.note)
                    <small class="hint">\(words("page.settings.mqtt_hint"))</small>\(test ? "\n<div class=\"buttons\"><button type=\"submit\" name=\"try_mqtt\" value=\"1\" class=\"secondary\">\(words("page.settings.mqtt_try"))</button></div>" : "" as HTML)
                    """
            },
            read: { form, chosen throws(FormProblem) in
                guard let address = form["mqtt_url"], let rawVersion = form["mqtt_version"] else { return }
                var reading = FormReading()
                let version = reading.read(MQTTSettings.Version.v5) { () throws(FormProblem) in
                    try choice(rawVersion, problem: "page.settings.problem.mqtt_version", field: "mqtt_version")
                }
                let url = address.trimmingCharacters(in: .whitespacesAndNewlines)
                reading.read(()) { () throws(FormProblem) in
                    guard MQTTSettings.problem(address: url) == nil else {
                        throw FormProblem(
                            words("page.settings.problem.mqtt_url", ["value": String(url.prefix(60))]),
                            field: "mqtt_url")
                    }
                }
                try reading.check()
                let mqtt = MQTTSettings(
                    address: url, username: (form["mqtt_username"] ?? "").trimmingCharacters(in: .whitespaces),
                    version: version, countdownButton: form["mqtt_button"] == "1")
                keep(mqtt, at: \.mqtt, over: base.mqtt, in: &chosen)
            },
            said: { owner in
                owner.mqtt.map {
                    $0.address.isEmpty
                        ? words("page.settings.summary.no_mqtt")
                        : words("page.settings.summary.mqtt", ["address": $0.address])
                }
            })
    }
}
