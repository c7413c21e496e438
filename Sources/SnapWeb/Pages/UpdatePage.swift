import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText
import Synchronization

/// The station's system update: the running version and slot, the other slot, the bundles at hand (sent
/// from the phone, or on a USB stick), and installing one with its progress. The restart into it is the
/// station's, at an idle moment (`Action.restartForUpdate`).
extension UpdateRoom {
    /// The bundles the page offers: those sent from the phone, newest first, then those on a USB stick
    /// (`*.raucb` up to three folders under `/media`).
    func bundles() -> [String] {
        let sent = Self.files(in: bundleFolder, depth: 1).sorted {
            Self.modified($0) > Self.modified($1)
        }
        return sent + Self.files(in: usbFolder, depth: 3).sorted()
    }

    static func files(in folder: String, depth: Int) -> [String] {
        guard depth > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().flatMap { name -> [String] in
            let path = folder + "/" + name
            var folderFlag: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &folderFlag) else { return [] }
            if folderFlag.boolValue { return files(in: path, depth: depth - 1) }
            return name.hasSuffix(".raucb") ? [path] : []
        }
    }

    private static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }

    func updatePage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        guard let updater else {
            return page(words("page.update.title"), "<p class=\"empty\">\(words("page.update.none"))</p>")
        }
        // On the page's own thread: the pool's two threads are the station's.
        let status = updater.currentStatus()
        guard status.managed else {
            return page(
                words("page.update.title"),
                """
                <p>\(words("page.update.version", ["version": status.version]))</p>
                <p class="empty">\(words("page.update.not_managed", ["reason": status.problem ?? ""]))</p>
                """)
        }
        let installing = installation.withLock { $0 }
        var notices: HTML = ""
        switch installing {
        case .installing(let name, let percent, let step)?:
            notices = """
                <p class="notice" role="status">\(words("page.update.installing", ["bundle": name, "percent": words.percent(percent), "step": step]))</p>
                <progress max="100" value="\(String(percent))"></progress>
                """
        case .installed(let version)?:
            notices = notice(words("page.update.installed", ["version": version]))
        case .failed(let reason)?:
            notices = notice(words("page.update.failed", ["reason": reason]), problem: true)
        case .older(_, let version, let running)?:
            let reason = words.updateFailure(.older(bundle: version, running: running))
            notices = """
                <p class="problem" role="alert">\(words("page.update.failed", ["reason": reason])) \
                <a class="danger" href="/update/downgrade">\(words("page.update.downgrade"))</a></p>
                """
        case nil: break
        }
        if let uploaded = visitor.form["uploaded"] {
            notices = "\(notices)\(notice(words("page.update.uploaded", ["bundle": uploaded])))"
        }
        let slots = status.slots.map { slot -> HTML in
            let state =
                slot.bootname == status.booted
                ? words(status.confirmed ? "page.update.slot.running" : "page.update.slot.trying")
                : words(slot.bootGood ? "page.update.slot.good" : "page.update.slot.bad")
            return """
                <tr><td>\(slot.bootname)</td><td>\(slot.version ?? words("page.update.slot.image"))</td><td>\(state)</td></tr>
                """
        }
        let busy = if case .installing? = installing { true } else { false }
        let offered = bundles().map { path -> HTML in
            let name = (path as NSString).lastPathComponent
            let place = path.hasPrefix(bundleFolder) ? words("page.update.sent") : words("page.update.usb")
            return """
                <li><form method="post" action="/update/install" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="bundle" value="\(path)">\(name) <small>\(place)</small> \
                <button type="submit"\(busy || status.pending != nil ? " disabled" : "")>\(words("page.update.install"))</button></form></li>
                """
        }
        return page(
            words("page.update.title"), refresh: busy ? 2 : nil,
            """
            \(notices)
            <p>\(words("page.update.running", ["version": status.version, "slot": status.booted ?? "?"]))</p>
            \(status.pending.map { HTML("<p class=\"notice\">\(words("page.update.pending", ["version": $0.version]))</p>") } ?? "")
            \(status.outcome.map { HTML("<p><small>\(words("page.update.last", ["outcome": words.updateOutcome($0)]))</small></p>") } ?? "")
            \(tableBox(words("page.update.slots"), """
            <table class="slots"><thead><tr><th>\(words("page.update.slot"))</th><th>\(words("page.update.slot_version"))</th>\
            <th>\(words("page.update.slot_state"))</th></tr></thead><tbody>\(slots)</tbody></table>
            """))
            <h2>\(words("page.update.bundles"))</h2>
            \(offered.isEmpty ? "<p class=\"empty\">\(words("page.update.no_bundles"))</p>" as HTML : "<ul class=\"bundles\">\(offered)</ul>")
            \(frame.uploadForm(.bundle, visitor, words))
            """)
    }

    /// Asks the owner whether the bundle just refused as older than the running system should go in all
    /// the same, and says what that does; back to the update page when no such refusal is there.
    func downgradePage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        guard updater != nil else { throw WebProblem.notFound(words("page.update.none"), words) }
        guard case .older(let path, let version, let running)? = installation.withLock({ $0 }),
            bundles().contains(path)
        else { return .redirect("/update") }
        let named = ["version": version, "running": running]
        return page(
            words("page.update.downgrade.title", named),
            """
            <p>\(words("page.update.downgrade.text", named))</p>
            <form method="post" action="/update/downgrade">\(csrfField(visitor))\
            <input type="hidden" name="bundle" value="\(path)">
            <button type="submit" class="danger">\(words("page.update.downgrade.button", named))</button> \
            <a href="/update">\(words("page.update.downgrade.keep", named))</a></form>
            """)
    }

    /// Installs one of the bundles the page offers, in the page's jobs; the page shows its progress and
    /// the display its note, then the restart waits for an idle moment. A bundle older than the running
    /// system goes in only with `allowDowngrade` (the owner confirmed it, `downgradePage`); else it is
    /// refused, and the page offers that confirmation.
    func installBundle(_ visitor: Visitor, allowDowngrade: Bool = false) throws -> WebReply {
        let words = self.words
        guard let updater else { throw WebProblem.notFound(words("page.update.none"), words) }
        let path = visitor.form["bundle"] ?? ""
        guard bundles().contains(path) else {
            throw WebProblem(404, words("page.update.title"), words("page.update.gone"))
        }
        let name = (path as NSString).lastPathComponent
        let claimed = installation.withLock { installation -> Bool in
            if case .installing? = installation { return false }
            installation = .installing(bundle: name, percent: 0, step: "")
            return true
        }
        guard claimed else { return .redirect("/update") }
        let confirmed = allowDowngrade ? ", its older version confirmed by the owner" : ""
        logger.notice("owner's page: installing the update \(name)\(confirmed)")
        // In the page's jobs: SIGTERM cancels the install (its `rauc install` client is ended), and the
        // station stops within its stop timeout instead of waiting minutes for RAUC.
        let started = jobs.start("the update \(name)") { [self] in
            let shown = Lock(-1)
            do throws(UpdateFailure) {
                let version = try await updater.install(bundle: path, allowDowngrade: allowDowngrade) {
                    version, percent, step in
                    self.installation.withLock { $0 = .installing(bundle: name, percent: percent, step: step) }
                    // The display's note follows the percent, not every step of it.
                    let changed = shown.withLock { last in
                        defer { last = percent }
                        return last != percent
                    }
                    if changed { self.link.send(.update(.installing(version: version, percent: percent))) }
                }
                // The display is told first, then the page: whoever reads the page's answer finds the
                // display already showing it.
                link.send(.update(.restarting(version: version)))
                installation.withLock { $0 = .installed(version: version) }
                // A bundle sent from the phone has done its work: the data partition keeps no copy.
                if path.hasPrefix(bundleFolder + "/") { try? FileManager.default.removeItem(atPath: path) }
            } catch {
                logger.error("owner's page: the update \(name) was not installed: \(error)")
                // The display's note goes first, unless an update installed before still waits for its
                // restart; then the page says why.
                let waiting = await updater.status().pending
                link.send(.update(waiting.map { .restarting(version: $0.version) }))
                installation.withLock {
                    if case .older(let version, let running) = error {
                        $0 = .older(bundle: path, version: version, running: running)
                    } else {
                        $0 = .failed(reason: self.words.updateFailure(error))
                    }
                }
            }
        }
        if !started { installation.withLock { $0 = .failed(reason: words("page.problem.stopping")) } }
        return .redirect("/update")
    }
}

/// An update installed from the page, until the next one.
enum Installation: Sendable {
    case installing(bundle: String, percent: Int, step: String)
    case installed(version: String)
    case failed(reason: String)
    /// Refused: the bundle at `bundle` holds `version`, older than the `running` system; the owner may
    /// confirm it.
    case older(bundle: String, version: String, running: String)
}

extension UpdateRoom {
    /// The file a bundle the gate let through goes to, or why the room refuses it: no updates here, too
    /// large, not a bundle's name.
    func bundleTarget(_ request: WebRequest, session: WebSession, _ words: Words) -> WebApp.UploadTarget {
        func refused(_ status: Int, _ message: String) -> WebApp.UploadTarget { .refused(status, message) }
        guard updater != nil else { return refused(404, words("page.update.none")) }
        let limit = maxBundleMB << 20
        if let length = request.header("content-length").flatMap(Int.init), length > limit {
            return refused(413, words("page.update.too_large", ["mb": words.integer(maxBundleMB)]))
        }
        let typed = (request.header("x-bundle-name") ?? "").removingPercentEncoding ?? ""
        let name = String(typed.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "-" }.suffix(100))
        guard name.hasSuffix(".raucb"), !name.hasPrefix(".") else {
            return refused(415, words("page.update.not_a_bundle"))
        }
        logger.notice("owner's page: \(session.name) sends the update bundle \(name)")
        return .file(bundleFolder + "/" + name, limit: limit)
    }

    /// The answer to an upload that ended: its name on the update page, or why it was not kept.
    func bundleReceived(_ path: String, problem: WebApp.UploadProblem?) -> WebReply {
        let words = self.words
        let name = (path as NSString).lastPathComponent
        let failure: String
        switch problem {
        case nil:
            logger.notice("owner's page: the update bundle \(name) is kept")
            let query =
                name.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"])) ?? ""
            return .redirect("/update?uploaded=" + query)
        case .tooLarge?: failure = words("page.update.too_large", ["mb": words.integer(maxBundleMB)])
        case .failed(let reason)?: failure = words("page.update.upload_failed", ["reason": reason])
        }
        logger.error("owner's page: the update bundle \(name) was not kept: \(failure)")
        return WebApp.uploadRefusal(problem.map { if case .tooLarge = $0 { 413 } else { 500 } } ?? 500, failure)
    }
}
