import SnapText

/// A form that failed, drawn again as it was sent: every field with what was typed into it, each wrong
/// field marked (`aria-invalid`, its message beside it tied by `aria-describedby`, the first one focused)
/// and one summary at the top linking to each. A form drawn without one (`FormEcho()`) shows what is
/// stored. A field's id is its name after `prefix` ("f-"; the settings' fields are named by their ids,
/// which the page's script knows), so that the summary's links find it.
struct FormEcho {
    /// What was sent; nil when the form is drawn fresh.
    let sent: Form?
    /// The problems in the form's order; the ones without a field are said only in the summary.
    let problems: [FormProblem]
    let prefix: String

    init(prefix: String = "f-") {
        sent = nil
        problems = []
        self.prefix = prefix
    }

    init(_ sent: Form, _ problem: FormProblem, prefix: String = "f-") {
        self.sent = sent
        problems = problem.all
        self.prefix = prefix
    }

    /// A form the other side refused as a whole (a group's server): drawn again as sent, nothing marked.
    init(keeping sent: Form, prefix: String = "f-") {
        self.sent = sent
        problems = []
        self.prefix = prefix
    }

    var failed: Bool { !problems.isEmpty }

    /// What the field shows: what was sent, or else what is stored.
    func value(_ name: String, _ stored: @autoclosure () -> String) -> String {
        sent.map { $0[name] ?? "" } ?? stored()
    }

    /// Whether a checkbox is ticked: as it was sent, or else as stored.
    func checked(_ name: String, _ stored: Bool) -> HTML {
        (sent.map { $0[name] != nil } ?? stored) ? " checked" : ""
    }

    /// Whether the checkbox `value` of the boxes named `name` is ticked: as sent, or else as stored.
    func checked(_ name: String, value: String, _ stored: Bool) -> HTML {
        (sent.map { $0.all(name).contains(value) } ?? stored) ? " checked" : ""
    }

    /// Whether `option` of a select is chosen: as sent, or else as stored.
    func selected(_ name: String, _ option: String, _ stored: String) -> HTML {
        value(name, stored) == option ? " selected" : ""
    }

    private func problem(_ name: String) -> FormProblem? { problems.first { $0.field == name } }

    /// The field's id, and its marks when it is wrong (the first wrong field takes the focus).
    func attributes(_ name: String) -> HTML {
        let id = prefix + name
        guard problem(name) != nil else { return " id=\"\(id)\"" }
        let first = problems.first { $0.field != nil }?.field == name
        let focus: HTML = first ? " autofocus" : ""
        return " id=\"\(id)\" aria-invalid=\"true\" aria-describedby=\"\(id)-problem\"\(focus)"
    }

    /// The field's message, to stand beside it.
    func message(_ name: String) -> HTML {
        guard let problem = problem(name) else { return "" }
        return "<small class=\"field-problem\" id=\"\(prefix + name)-problem\">\(problem.message)</small>"
    }

    /// The summary at the top: what was not saved (or `title`: what was not done), each wrong field's
    /// message a link to it.
    func summary(_ words: Words, title: String? = nil) -> HTML {
        guard failed else { return "" }
        if problems.count == 1, let only = problems.first, only.field == nil {
            return PageFrame.notice(words("page.form.not_saved", ["problem": only.message]), problem: true)
        }
        let items = problems.map { problem -> HTML in
            guard let field = problem.field else { return "<li>\(problem.message)</li>" }
            return "<li><a href=\"#\(prefix + field)\">\(problem.message)</a></li>"
        }
        return """
            <div class="problem" role="alert"><p>\(title ?? words("page.form.not_saved_fields", count: problems.count))</p>\
            <ul>\(items)</ul></div>
            """
    }
}
