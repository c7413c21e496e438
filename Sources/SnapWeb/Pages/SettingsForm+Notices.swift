import SnapCore
import SnapText

/// The notices' row of the settings form: where they go (an ntfy topic or a webhook), which kinds are
/// sent, and the reminder's time; the whole `[notify]` table, kept together.
extension SettingsForm {
    func noticesRow(_ lock: (disabled: HTML, note: HTML), echo: FormEcho) -> Row {
        let (words, now, base, test) = (words, now, base, offersNoticeTest && lock.disabled.description.isEmpty)
        return Row(
            section: .notices,
            field: {
                let notices = now.notices
                let formats = NoticeFormat.allCases.map { format -> HTML in
                    "<option value=\"\(format.rawValue)\"\(echo.selected("notify_format", format.rawValue, notices.format.rawValue))>\(words("page.settings.notify_format.\(format.rawValue)"))</option>"
                }
                let kinds = NoticeKind.allCases.map { kind -> HTML in
                    let ticked = echo.checked("notify_on", value: kind.rawValue, !notices.off.contains(kind))
                    return
                        "<label><input type=\"checkbox\" name=\"notify_on\" value=\"\(kind.rawValue)\"\(ticked)\(lock.disabled)> \(words("page.settings.notify_kind.\(kind.rawValue)"))</label>"
                }
                let reminder = notices.reminder.map(NoticeSettings.clock) ?? ""
                return """
                    <label>\(words("page.settings.notify_format")) <select name="notify_format"\(echo.attributes("notify_format"))\(lock.disabled)>\(formats)</select></label>
                    <label class="wide">\(words("page.settings.notify_url")) <input type="url" name="notify_url"\(echo.attributes("notify_url")) \
                    value="\(echo.value("notify_url", notices.address))" spellcheck="false" autocomplete="off" placeholder="https://ntfy.sh/…"\(lock.disabled)></label>\
                    \(echo.message("notify_url"))
                    \(kinds)
                    <label>\(words("page.settings.notify_reminder")) <input type="time" name="notify_reminder"\(echo.attributes("notify_reminder")) \
                    value="\(echo.value("notify_reminder", reminder))"\(lock.disabled)>\(lock.note)</label>\(echo.message("notify_reminder"))
                    <small class="hint">\(words("page.settings.notify_hint"))</small>\(test ? "\n<div class=\"buttons\"><button type=\"submit\" name=\"try_notices\" value=\"1\" class=\"secondary\">\(words("page.settings.notify_try"))</button></div>" : "" as HTML)
                    """
            },
            read: { form, chosen throws(FormProblem) in
                guard let address = form["notify_url"], let rawFormat = form["notify_format"] else { return }
                var reading = FormReading()
                let format = reading.read(NoticeFormat.ntfy) { () throws(FormProblem) in
                    try choice(rawFormat, problem: "page.settings.problem.notify_format", field: "notify_format")
                }
                let url = address.trimmingCharacters(in: .whitespacesAndNewlines)
                reading.read(()) { () throws(FormProblem) in
                    switch NoticeSettings.problem(address: url, format: format) {
                    case .notHTTP?:
                        throw FormProblem(
                            words("page.settings.problem.notify_url", ["value": String(url.prefix(60))]),
                            field: "notify_url")
                    case .noTopic?:
                        throw FormProblem(words("page.settings.problem.notify_topic"), field: "notify_url")
                    case nil: break
                    }
                }
                let on = Set(form.all("notify_on").compactMap(NoticeKind.init(rawValue:)))
                let time = form["notify_reminder"] ?? ""
                let reminder = reading.read(Int?.none) { () throws(FormProblem) in
                    guard !time.isEmpty else { return nil }
                    guard let minute = NoticeSettings.minute(time) else {
                        throw FormProblem(
                            words("page.settings.problem.notify_reminder", ["value": String(time.prefix(10))]),
                            field: "notify_reminder")
                    }
                    return minute
                }
                try reading.check()
                let notices = NoticeSettings(
                    address: url, format: format, off: Set(NoticeKind.allCases).subtracting(on), reminder: reminder)
                keep(notices, at: \.notices, over: base.notices, in: &chosen)
            },
            said: { owner in
                owner.notices.map {
                    $0.address.isEmpty
                        ? words("page.settings.summary.no_notices")
                        : words("page.settings.summary.notices", ["address": $0.address])
                }
            })
    }
}
