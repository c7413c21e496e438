import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapText

/// What the account's form answered: the server's word as a notice, and the form as it was sent (its
/// field marked) when nothing was made.
struct AccountAnswer {
    var said: HTML
    var echo: FormEcho
}

/// The station's own account on the group's Supabase project, from the Keys page instead of a shell: a new
/// one made (`signUp`, with a password the station makes and keeps as the group's entered key, never
/// shown), or one it already has signed in to with its password. The email becomes the owner's
/// `group.email` (a setting taken at start), the password the entered group key, and the station restarts
/// to sign in with them. Not offered where the installer's `key_source` or `web.locked` decide the account.
extension KeysRoom {
    /// Whether the page may give the station its account.
    private var offersAccount: Bool {
        guard accounts != nil, config.group.backend == .supabase, config.settingsRule.offers(.groupEmail) else {
            return false
        }
        if case (_, .config)? = config.key(.group, entered: keys) { return false }
        return true
    }

    func accountForm(_ visitor: Visitor, _ answer: AccountAnswer?) -> HTML {
        guard offersAccount else { return "" }
        let words = self.words
        let echo = answer?.echo ?? FormEcho(prefix: "account-")
        let email = inForce.groupEmail
        let now = email.isEmpty ? words("page.keys.account_none") : words("page.keys.account_is", ["email": email])
        return """
            <h3>\(words("page.keys.account"))</h3>\(answer?.said ?? "")
            <p>\(now)</p><p><small>\(words("page.keys.account_text"))</small></p>
            <form method="post" action="/keys/group/account">\(csrfField(visitor))
            <label for="account-email">\(words("page.keys.account_email"))</label>
            <input type="email" name="email"\(echo.attributes("email")) value="\(echo.value("email", email))" required autocomplete="email" spellcheck="false">\
            \(echo.message("email"))
            <label for="account-password">\(words("page.keys.account_password"))</label>
            <input type="password" name="password"\(echo.attributes("password")) autocomplete="off">\(echo.message("password"))
            <div class="buttons"><button type="submit">\(words("page.keys.account_go"))</button></div></form>
            """
    }

    /// Makes the station's account (no password given) or signs in to it (its password given); once the
    /// server took it, keeps the password and the email and restarts the station to use them. A refusal is
    /// said in the server's words, and nothing changes.
    func account(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        guard let accounts, offersAccount else { throw WebProblem.notFound(words("page.keys.unknown"), words) }
        let form = visitor.form
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let given = form["password"] ?? ""
        var reading = FormReading()
        reading.read(()) { () throws(FormProblem) in
            guard StationConfig.isEmail(email) else {
                throw FormProblem(words("page.keys.account_email_invalid"), field: "email")
            }
        }
        reading.read(()) { () throws(FormProblem) in
            guard given.isEmpty || EnteredKeys.isValid(given) else {
                throw FormProblem(words("page.keys.invalid"), field: "password")
            }
        }
        do throws(FormProblem) {
            try reading.check()
        } catch {
            let echo = FormEcho(form, error, prefix: "account-")
            return .reply(keysPage(visitor, account: AccountAnswer(said: "", echo: echo)))
        }
        // A new account gets a password of the station's own: 256 random bits, never shown.
        let password = given.isEmpty ? Secrets.token() : given
        return .after {
            let outcome =
                given.isEmpty
                ? await accounts.signUp(email: email, password: password)
                : await accounts.signIn(email: email, password: password)
            return { try self.answered(outcome, email: email, password: password, visitor) }
        }
    }

    private func answered(_ outcome: GroupAccountOutcome, email: String, password: String, _ visitor: Visitor)
        throws -> PageStep
    {
        let words = self.words
        let kept = FormEcho(keeping: visitor.form, prefix: "account-")
        let said: String
        switch outcome {
        case .signedIn:
            said = words(
                visitor.form["password"]?.isEmpty == false ? "page.keys.account_signed_in" : "page.keys.account_made",
                ["email": email])
        case .confirmationSent: said = words("page.keys.account_confirm", ["email": email])
        case .refused(let status, let server):
            logger.notice("owner's page: the group's server refused the account \(email): \(server) (HTTP \(status))")
            let text = words("page.keys.account_refused", ["words": server, "status": String(status)])
            return .reply(keysPage(visitor, account: AccountAnswer(said: notice(text, problem: true), echo: kept)))
        case .failed(let failure):
            logger.warning("owner's page: the group's server was not reached for the account \(email): \(failure)")
            let text = words("page.keys.account_offline")
            return .reply(keysPage(visitor, account: AccountAnswer(said: notice(text, problem: true), echo: kept)))
        }
        do throws(FileError) {
            try keys.keep(password, for: .group, to: nil)
            // The refresh token kept was another account's: the station signs in afresh with this one.
            try AtomicFile.remove(config.supabaseSessionFile)
        } catch {
            logger.error("owner's page: the group's account was not kept: \(error)")
            return .reply(keysPage(visitor, problem: (.group, words("page.keys.failed", ["error": "\(error)"]))))
        }
        logger.notice(
            "owner's page: the station's group account is \(email) (\(outcome == .signedIn ? "signed in" : "to confirm"))"
        )
        return changing(.part(RuntimeSettings(groupEmail: email), keys: [.groupEmail])) { _ in
            self.frame.link.send(.startChanged)
            return .reply(
                self.keysPage(
                    visitor, account: AccountAnswer(said: self.notice(said), echo: FormEcho(prefix: "account-"))))
        }
    }
}
