import Foundation
import SnapCore
import SnapStore

extension WebApp {
    /// A whole page: the header with the station's name and the sections, a banner while the station
    /// shows a meal result that can be reviewed here, and the content.
    func page(_ title: String, paired: Bool = true, status: Int = 200, _ content: HTML) -> WebReply {
        var banner: HTML = ""
        if paired, case .mealResult(let result)? = link.status().screen {
            banner = """
                <p class="banner"><a href="/review">The station shows “\(result.analysis.title)”: review it here</a></p>
                """
        }
        let nav: HTML =
            !paired
            ? ""
            : """
            <nav><a href="/">Today</a><a href="/history">History</a><a href="/shopping">Shopping</a>\
            <a href="/group">Group</a><a href="/settings">Settings</a><a href="/status">Status</a></nav>
            """
        return .html(
            """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · \(config.station.name)</title>
            <link rel="stylesheet" href="/static/style.css"><script src="/static/page.js" defer></script>
            </head><body>
            <header><a class="brand" href="/">\(config.station.name)</a>\(nav)</header>
            <main>\(banner)<h1>\(title)</h1>
            \(content)
            </main></body></html>
            """, status: status)
    }

    func problemPage(_ problem: WebProblem, request: WebRequest) -> WebReply {
        // Only a live session sees the station's navigation and what its screen shows.
        let paired = ((try? liveSession(of: request)) ?? nil) != nil
        return page(
            problem.title, paired: paired, status: problem.status,
            """
            <p class="problem" role="alert">\(problem.message)</p>
            <p><a href="\(paired ? "/" : "/pair")">Back</a></p>
            """)
    }

    /// The hidden field every form carries.
    func csrfField(_ visitor: Visitor) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(visitor.session.csrf)\">"
    }

    /// A message at the top of a page after a change (`?saved=…`), or a problem.
    func notice(_ text: String?, problem: Bool = false) -> HTML {
        guard let text, !text.isEmpty else { return "" }
        return problem
            ? "<p class=\"problem\" role=\"alert\">\(text)</p>" : "<p class=\"notice\" role=\"status\">\(text)</p>"
    }

    func macrosLine(_ macros: Macros) -> HTML {
        "<span class=\"kcal\">\(macros.calories) kcal</span> <span class=\"pcf\">P \(macros.protein) · C \(macros.carbs) · F \(macros.fats) g</span>"
    }

    /// "HH:MM" in the station's zone, by arithmetic on the zone's offset at that moment: a Calendar per
    /// meal costs more than the rest of a day's page.
    func clock(_ date: Date) -> String {
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let minutes = ((local / 60) % 1440 + 1440) % 1440
        let (hour, minute) = (minutes / 60, minutes % 60)
        return (hour < 10 ? "0" : "") + String(hour) + (minute < 10 ? ":0" : ":") + String(minute)
    }

    func dateAndTime(_ date: Date) -> String {
        "\(LocalDay(containing: date, in: timeZone)) \(clock(date))"
    }

    /// "in 3 h 20 min", "in 12 min", "now".
    func remaining(until date: Date) -> String {
        let minutes = Int(date.timeIntervalSince(now()) / 60)
        if minutes <= 0 { return "now" }
        return minutes >= 60 ? "in \(minutes / 60) h \(minutes % 60) min" : "in \(minutes) min"
    }
}
