import Foundation
import SnapCore
import SnapText

/// The factory reset (`Event.resetAsked`): asked here, confirmed at the station by a long hold on its
/// question, so that neither a phone left paired nor a child at the button erases the station alone. The
/// page says what goes and what stays, offers a backup first, and follows the station's screen (it reloads
/// itself while the station asks or erases; once erased, this browser is no longer paired).
extension ResetRoom {
    func resetPage(_ visitor: Visitor, busy: Bool = false) -> WebReply {
        let words = self.words
        var said: HTML = ""
        var refresh: Int?
        if case .question(let screen)? = link.status().screen, screen.question == .reset {
            said = notice(words(screen.secondsLeft == nil ? "page.reset.erasing" : "page.reset.asking"))
            refresh = 3
        } else if busy {
            said = notice(words("page.reset.busy"), problem: true)
        }
        return page(
            words("page.reset.title"), status: busy ? 409 : 200, refresh: refresh,
            """
            \(said)
            <p>\(words("page.reset.text"))</p>
            <p>\(words("page.reset.kept"))</p>
            <p><a href="/backup">\(words("page.reset.backup_first"))</a></p>
            <form method="post" action="/reset">\(csrfField(visitor))
            <button type="submit" class="danger">\(words("page.reset.ask"))</button></form>
            """)
    }

    /// Asks the station; the page then says to hold its button, or that it is busy (nothing asked).
    func askReset(_ visitor: Visitor) throws -> PageStep {
        delivering(.resetAsked) { status in
            let asking =
                if case .question(let screen)? = status.screen, screen.question == .reset {
                    screen.secondsLeft != nil
                } else { false }
            if asking { logger.notice("owner's page: factory reset asked; the station asks for the long hold") }
            return .reply(resetPage(visitor, busy: !asking))
        }
    }
}
