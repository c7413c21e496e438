import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapStore
import SnapText
import Synchronization

/// What every room writes its pages with: the words of the request being answered (read from the
/// owner's settings once as it comes in), the layout (the header, the sections, the review banner), the
/// station's clock and zone, and the log.
struct PageFrame: Sendable {
    let stationName: String
    /// For the review banner: what the station's screen shows.
    let link: any StationLink
    let logger: Logger
    let now: @Sendable () -> Date
    let timeZone: TimeZone
    /// The state folder (`storage.dir`), which no problem a page says names (`withoutPaths`).
    var stateFolder = ""
    /// The words of the request being answered; a reply made off the page's thread (a request too large
    /// to read, a correction's answer) speaks the last request's.
    let spoken = RoomState(Words())
    /// Whether the browser being answered is a household member's (`PageGate` binds it around the
    /// handler): its header leaves out the owner's Settings. A page made after the handler returned (a
    /// step of a longer answer) shows every link; the routes refuse a member either way.
    @TaskLocal static var forMember = false

    var words: Words { spoken.withLock { $0 } }

    /// `text` (a problem's words, which may carry a file system's or a library's message) without the
    /// state folder's absolute path: a page names the station's files by what is in the folder, never
    /// where it is.
    func withoutPaths(_ text: String) -> String {
        guard !stateFolder.isEmpty else { return text }
        return text.replacingOccurrences(of: stateFolder + "/", with: "").replacingOccurrences(
            of: stateFolder, with: "…")
    }

    /// A whole page: the header with the station's name and the sections, a banner while the station
    /// shows a meal result that can be reviewed here, and the content.
    /// `refresh` reloads the page after that many seconds (while the AI is asked about a correction), or
    /// opens `refreshTo` then (a path of the page's: the station's restart waited out).
    func page(
        _ title: String, paired: Bool = true, status: Int = 200, refresh: Int? = nil, refreshTo: String? = nil,
        _ content: HTML
    ) -> WebReply {
        let words = self.words
        var banner: HTML = ""
        if paired, case .mealResult(let result)? = link.status().screen {
            banner = """
                <p class="banner"><a href="/review">\(words("page.nav.review_banner", ["title": result.analysis.title]))</a></p>
                """
        }
        let nav: HTML =
            !paired
            ? ""
            : """
            <nav><a href="/">\(words("page.nav.today"))</a><a href="/log">\(words("page.nav.log"))</a><a href="/history">\(words("page.nav.history"))</a>\
            <a href="/shopping">\(words("page.nav.shopping"))</a><a href="/group">\(words("page.nav.group"))</a>\
            \(Self.forMember ? "" : "<a href=\"/settings\">\(words("page.nav.settings"))</a>" as HTML)<a href="/status">\(words("page.nav.status"))</a></nav>
            """
        let head: HTML = """
            <!doctype html>
            <html lang="\(words.language.rawValue)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            \(refresh.map { HTML("<meta http-equiv=\"refresh\" content=\"\($0)\(refreshTo.map { ";url=\($0)" } ?? "")\">") } ?? "")
            <title>\(title) · \(stationName)</title>
            <link rel="stylesheet" href="/static/style.css"><script src="/static/page.js" defer></script>
            </head><body>
            <header><a class="brand" href="/">\(stationName)</a>\(nav)</header>
            <main>\(banner)<h1>\(title)</h1>

            """
        // The body's bytes written once, the content copied into them as it is: a day of 500 meals is 165 KB,
        // and the page around it as one more string, then its bytes, were two copies more of it.
        let tail = "\n</main></body></html>"
        var body: [UInt8] = []
        body.reserveCapacity(head.text.utf8.count + content.text.utf8.count + tail.utf8.count)
        body += head.text.utf8
        body += content.text.utf8
        body += tail.utf8
        return WebReply(status: status, headers: WebReply.htmlHeaders, body: body)
    }

    /// The form whose file the page's script sends as a request's whole body (`WebApp.Upload`): the file
    /// field, its button, the progress bar, and where a refusal is said.
    func uploadForm(_ upload: WebApp.Upload, _ visitor: PageVisitor, _ words: Words, query: String = "") -> HTML {
        let form = upload.form
        let (choose, send, lost, working) = form.words
        let sent: HTML = working.map { " data-sent=\"\(words($0))\"" } ?? ""
        return """
            <form class="upload" data-upload="\(form.path + query)" data-done="\(form.done)" data-csrf="\(visitor.session.csrf)" data-lost="\(words(lost))"\(sent)>
            <label>\(words(choose)) <input type="file" id="\(form.id)" accept="\(form.accept)"></label>
            <button type="button" class="send">\(words(send))</button>
            <progress max="100" value="0" hidden></progress>
            <p class="working" role="status" hidden></p>
            <p class="problem" role="alert" hidden></p>
            <noscript><p class="empty">\(words("page.update.noscript"))</p></noscript>
            </form>
            """
    }

    /// A form's button that asks the AI service (`key`: a plural text of the analyses `left` today), or,
    /// with none left, the same button disabled, saying so.
    static func askButton(_ key: String, left: Int, _ words: Words) -> HTML {
        left > 0
            ? "<button type=\"submit\">\(words(key, count: left))</button>"
            : "<button type=\"submit\" disabled>\(words("page.ai.none_left"))</button>"
    }

    /// The hidden field every form carries.
    func csrfField(_ visitor: PageVisitor) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(visitor.session.csrf)\">"
    }

    /// A message at the top of a page after a change (`?saved=…`), or a problem.
    func notice(_ text: String?, problem: Bool = false) -> HTML { Self.notice(text, problem: problem) }

    /// The same, where no page's frame is at hand (`FormEcho`).
    static func notice(_ text: String?, problem: Bool = false) -> HTML {
        guard let text, !text.isEmpty else { return "" }
        return problem
            ? "<p class=\"problem\" role=\"alert\">\(text)</p>" : "<p class=\"notice\" role=\"status\">\(text)</p>"
    }

    /// A table that may be wider than a phone: it scrolls sideways inside its own box, never the page
    /// (WCAG SC 1.4.10), and the box takes the focus so that a keyboard can scroll it, named by `label`.
    func tableBox(_ label: String, _ table: HTML) -> HTML {
        "<div class=\"table-box\" tabindex=\"0\" role=\"region\" aria-label=\"\(label)\">\(table)</div>"
    }

    /// "650 kcal P 24 · C 80 · F 22 g".
    func macrosLine(_ macros: Macros, _ words: Words) -> HTML {
        RowWords(words, timeZone: timeZone).macrosLine(macros)
    }

    /// "HH:MM" in the station's zone, by arithmetic on the zone's offset at that moment: a Calendar per
    /// meal costs more than the rest of a day's page. A 24-hour clock in every language (`Words`).
    func clock(_ date: Date) -> String { Self.clock(date, offset: timeZone.secondsFromGMT(for: date)) }

    /// "HH:MM" of `date` in a zone `offset` seconds from UTC.
    static func clock(_ date: Date, offset: Int) -> String {
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let minutes = ((local / 60) % 1440 + 1440) % 1440
        return Words.clock(hour: minutes / 60, minute: minutes % 60)
    }

    /// "Monday 3 March, 12:00" in the station's zone.
    func dateAndTime(_ date: Date, _ words: Words) -> String {
        words("page.date_time", ["day": words.day(LocalDay(containing: date, in: timeZone)), "time": clock(date)])
    }

    /// "in 3 h 20 min", "in 12 min", "now".
    func remaining(until date: Date, _ words: Words) -> String {
        let minutes = Int(date.timeIntervalSince(now()) / 60)
        if minutes <= 0 { return words("page.time.now") }
        return minutes >= 60
            ? words(
                "page.time.in_hours", ["hours": words.integer(minutes / 60), "minutes": words.integer(minutes % 60)])
            : words("page.time.in_minutes", count: minutes)
    }
}

/// The texts a page writes in each of its rows (a meal's macros and time, a day's name, its kcal), read
/// from the catalog once for the page: a page of 500 meals filled each by name, which built a dictionary
/// and searched its text for every row (`Words.Template`).
struct RowWords {
    let words: Words
    private let kcalText: Words.Template
    private let macrosText: Words.Template
    private let pcfText: Words.Template
    private let dayText: Words.Template
    private let weekdays: [String]
    private let months: [String]
    private let timeZone: TimeZone
    /// The zone's offset from UTC, and the span of time it holds for (until the next change of the
    /// clocks): a day's meals ask it once, not once a row.
    private var offset: (seconds: Int, from: Date, until: Date)?

    init(_ words: Words, timeZone: TimeZone) {
        self.words = words
        self.timeZone = timeZone
        kcalText = words.template("unit.kcal", ["n"])
        macrosText = words.template("macros.line", ["protein", "carbs", "fats"])
        pcfText = words.template("page.macros", ["protein", "carbs", "fats"])
        dayText = words.template("date.day", ["weekday", "day", "month", "year"])
        weekdays = (1...7).map(words.weekday)
        months = (1...12).map(words.month)
    }

    /// "650 kcal".
    func kcal(_ calories: Int) -> String { kcalText(words.integer(calories)) }

    /// "P 24 g · C 80 g · F 22 g".
    func macros(_ macros: Macros) -> String {
        macrosText(words.integer(macros.protein), words.integer(macros.carbs), words.integer(macros.fats))
    }

    /// "650 kcal P 24 · C 80 · F 22 g" (`PageFrame.macrosLine` writes a single one with it).
    func macrosLine(_ macros: Macros) -> HTML {
        var line = MarkupWriter(capacity: 96)
        write(macros, into: &line)
        return line.html
    }

    /// The macros line written where a page's rows are being written.
    func write(_ macros: Macros, into line: inout MarkupWriter) {
        line.raw("<span class=\"kcal\">")
        line.text(kcal(macros.calories))
        line.raw("</span> <span class=\"pcf\">")
        line.text(pcfText(words.integer(macros.protein), words.integer(macros.carbs), words.integer(macros.fats)))
        line.raw("</span>")
    }

    /// "Monday 3 March", as `Words.day` says it.
    func day(_ day: LocalDay) -> String {
        dayText(weekdays[day.weekday - 1], String(day.day), months[day.month - 1], String(day.year))
    }

    /// "HH:MM" in the station's zone, as `PageFrame.clock` writes it.
    mutating func clock(_ date: Date) -> String {
        if offset.map({ date < $0.from || date >= $0.until }) ?? true {
            let until = timeZone.nextDaylightSavingTimeTransition(after: date) ?? .distantFuture
            offset = (timeZone.secondsFromGMT(for: date), date, until)
        }
        return PageFrame.clock(date, offset: offset?.seconds ?? 0)
    }
}

/// Every room writes with its frame: these are its words, its layout and its clock.
extension PageRoom {
    typealias Visitor = PageVisitor

    var words: Words { frame.words }
    var logger: Logger { frame.logger }
    var timeZone: TimeZone { frame.timeZone }
    func now() -> Date { frame.now() }

    func page(
        _ title: String, paired: Bool = true, status: Int = 200, refresh: Int? = nil, refreshTo: String? = nil,
        _ content: HTML
    ) -> WebReply {
        frame.page(title, paired: paired, status: status, refresh: refresh, refreshTo: refreshTo, content)
    }

    func csrfField(_ visitor: PageVisitor) -> HTML { frame.csrfField(visitor) }
    func askButton(_ key: String, left: Int, _ words: Words) -> HTML { PageFrame.askButton(key, left: left, words) }
    func notice(_ text: String?, problem: Bool = false) -> HTML { frame.notice(text, problem: problem) }
    func tableBox(_ label: String, _ table: HTML) -> HTML { frame.tableBox(label, table) }
    func macrosLine(_ macros: Macros, _ words: Words) -> HTML { frame.macrosLine(macros, words) }
    /// The texts of a page's rows, read once for the page.
    func rowWords(_ words: Words) -> RowWords { RowWords(words, timeZone: timeZone) }
    func clock(_ date: Date) -> String { frame.clock(date) }
    func dateAndTime(_ date: Date, _ words: Words) -> String { frame.dateAndTime(date, words) }
    func remaining(until date: Date, _ words: Words) -> String { frame.remaining(until: date, words) }
}
