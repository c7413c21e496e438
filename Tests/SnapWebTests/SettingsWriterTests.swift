import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapTestSupport
import SnapText
import Synchronization
import Testing

@testable import SnapWeb

/// A group's server that answers a join only when the test lets it: the page waits in the middle of
/// joining, where a change made at the station's menu used to be lost.
private final class HeldDirectory: GroupDirectory {
    private let state = Lock<(asked: Bool, answer: CheckedContinuation<Void, Never>?, released: Bool)>(
        (false, nil, false))

    var asked: Bool { state.withLock { $0.asked } }

    func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.answer = nil }
            return state.answer
        }
        waiting?.resume()
    }

    func join(code: String, member: String) async throws(UploadFailure) -> String {
        await withCheckedContinuation { answer in
            let now = state.withLock { state -> Bool in
                state.asked = true
                if state.released { return true }
                state.answer = answer
                return false
            }
            if now { answer.resume() }
        }
        return "Family"
    }

    func create(group: String, member: String) async throws(UploadFailure) -> String { throw .offline }
    func invite(group: String) async throws(UploadFailure) -> String { throw .offline }
    func leave(group: String) async throws(UploadFailure) { throw .offline }
    func members(of group: String) async throws(UploadFailure) -> [GroupMember] { [] }
}

@Suite("The owner's settings: one writer, the state machine")
struct SettingsWriterTests {
    private func menu(_ station: WebTestStation) -> MenuScreen? {
        if case .menu(let menu) = station.link.stationScreen { return menu }
        return nil
    }

    @Test("should keep both the flash turned off at the station's menu and the group the page joins meanwhile")
    func menuAndPageAtOnce() async throws {
        let directory = HeldDirectory()
        let station = try WebTestStation(groups: [], directory: directory, name: "Kitchen")
        let browser = try await station.pair()
        let joining = Task {
            await station.post(
                "/group/join", [("csrf", browser.csrf), ("code", "K7QM-3HXA-9TPZ"), ("member", "Kitchen")],
                cookie: browser.cookie)
        }
        #expect(await eventually(every: .milliseconds(5)) { directory.asked }, "the page asked to join")

        // Meanwhile, at the station: the mode button round to the settings menu, and a press on the flash.
        for _ in 0..<4 where menu(station) == nil { station.link.station(.button(.mode)) }
        let opened = try #require(menu(station), "the menu: \(station.link.stationScreen)")
        #expect(opened.entries == [.flash(on: true)])
        station.link.station(.button(.press))
        #expect(try station.store.runtimeSettings() == RuntimeSettings(flash: false), "the menu's change is stored")

        directory.release()
        let joined = await joining.value
        #expect(joined.status == 303 && joined.header("Location") == "/group?joined=1", "\(joined.text)")
        let both = RuntimeSettings(flash: false, groups: ["Family"])
        #expect(try station.store.runtimeSettings() == both, "both changes stored")
        let status = station.link.status()
        #expect(status.owner == both && !status.inForce.flash && status.inForce.groups == ["Family"])
    }

    @Test("should keep the groups when the settings form is saved or reset, and give a locked setting back")
    func formKeepsTheGroups() async throws {
        let station = try WebTestStation(locked: ["countdown.flash"], groups: [])
        let browser = try await station.pair()
        _ = await station.link.change(.joined("Family"))
        let saved = await station.post(
            "/settings", [("csrf", browser.csrf), ("countdown", "5"), ("flash", "1")], cookie: browser.cookie)
        #expect(saved.status == 303)
        #expect(try station.store.runtimeSettings() == RuntimeSettings(countdownSeconds: 5, groups: ["Family"]))
        let reset = await station.post("/settings", [("csrf", browser.csrf), ("reset", "1")], cookie: browser.cookie)
        #expect(reset.status == 303)
        #expect(try station.store.runtimeSettings() == RuntimeSettings(groups: ["Family"]))
    }

    @Test("should take the quiet hours from the form, show them, and refuse hours that are no span")
    func quietHours() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let empty = await station.get("/settings", cookie: browser.cookie).text
        #expect(empty.contains("name=\"quiet_from\" id=\"quiet_from\" value=\"\""), "none by default")
        let saved = await station.post(
            "/settings", [("csrf", browser.csrf), ("quiet_from", "22:00"), ("quiet_until", "07:00")],
            cookie: browser.cookie)
        #expect(saved.status == 303)
        #expect(try station.store.runtimeSettings().quietHours?.description == "22:00-07:00")
        #expect(station.link.status().inForce.quietHours == QuietHours("22:00-07:00"))
        let page = await station.get("/settings", cookie: browser.cookie).text
        #expect(page.contains("name=\"quiet_from\" id=\"quiet_from\" value=\"22:00\""))
        #expect(page.contains("quiet 22:00-07:00"), "the page says what the owner changed")
        for (from, until) in [("22:00", ""), ("07:00", "07:00"), ("25:00", "07:00")] {
            let bad = await station.post(
                "/settings", [("csrf", browser.csrf), ("quiet_from", from), ("quiet_until", until)],
                cookie: browser.cookie)
            #expect(bad.status == 400 && bad.text.contains("is not a span of hours"), "\(from)-\(until)")
        }
        #expect(station.link.status().inForce.quietHours == QuietHours("22:00-07:00"), "kept")
    }

    @Test(
        "should take where the notices go, which kinds and the reminder from the form, and refuse an address without a topic"
    )
    func notices() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let empty = await station.get("/settings", cookie: browser.cookie).text
        #expect(empty.contains("name=\"notify_url\" id=\"notify_url\" value=\"\""), "none by default")
        #expect(empty.contains("value=\"storage\" checked"), "every kind on by default")
        let form: [(String, String)] = [
            ("csrf", browser.csrf), ("notify_format", "ntfy"), ("notify_url", " https://ntfy.sh/kitchen-7f3a "),
            ("notify_on", "shared"), ("notify_on", "ai"), ("notify_on", "storage"), ("notify_reminder", "18:30"),
        ]
        let saved = await station.post("/settings", form, cookie: browser.cookie)
        #expect(saved.status == 303)
        let wanted = NoticeSettings(
            address: "https://ntfy.sh/kitchen-7f3a", format: .ntfy, off: [.photoDue, .update], reminder: 18 * 60 + 30)
        #expect(try station.store.runtimeSettings().notices == wanted)
        #expect(station.link.status().inForce.notices == wanted)
        let page = await station.get("/settings", cookie: browser.cookie).text
        #expect(page.contains("value=\"https://ntfy.sh/kitchen-7f3a\"") && page.contains("value=\"18:30\""))
        #expect(page.contains("value=\"update\">") && page.contains("value=\"ai\" checked"), "off unticked, on ticked")
        #expect(page.contains("notifications to https://ntfy.sh/kitchen-7f3a"), "the page says what the owner changed")
        let bad = await station.post(
            "/settings",
            [
                ("csrf", browser.csrf), ("notify_format", "ntfy"), ("notify_url", "https://ntfy.sh/"),
                ("notify_reminder", "7pm"),
            ],
            cookie: browser.cookie)
        #expect(bad.status == 400 && bad.text.contains("Put the ntfy topic after the server"))
        #expect(bad.text.contains("7pm") && bad.text.contains("is not a time of day"), "both wrong fields at once")
        #expect(bad.text.contains("value=\"https://ntfy.sh/\""), "as it was typed")
        #expect(station.link.status().inForce.notices == wanted, "kept")
    }

    /// Stands in for the station's sender: answers as told, and keeps what it was asked.
    final class RecordingTrier: NoticeTrier {
        let answer: NoticeOutcome
        let asked = Lock<[(NoticeSettings, Language)]>([])
        init(_ answer: NoticeOutcome) { self.answer = answer }
        func tryNotices(_ settings: NoticeSettings, language: Language) async -> NoticeOutcome {
            asked.withLock { $0.append((settings, language)) }
            return answer
        }
    }

    @Test("should save the notices, send a test to the address saved, and show how it went in the server's words")
    func noticeTest() async throws {
        for (answer, said) in [
            (NoticeOutcome.sent, "A test went to https://ntfy.sh/kitchen-7f3a"),
            (.refused("HTTP 403: forbidden"), "https://ntfy.sh/kitchen-7f3a refused the test: HTTP 403: forbidden"),
        ] {
            let trier = RecordingTrier(answer)
            let station = try WebTestStation(noticeTrier: trier)
            let browser = try await station.pair()
            #expect(await station.get("/settings", cookie: browser.cookie).text.contains("name=\"try_notices\""))
            let tried = await station.post(
                "/settings",
                [
                    ("csrf", browser.csrf), ("notify_format", "ntfy"), ("notify_url", "https://ntfy.sh/kitchen-7f3a"),
                    ("notify_on", "ai"), ("notify_reminder", ""), ("try_notices", "1"),
                ],
                cookie: browser.cookie)
            #expect(tried.status == 200 && tried.text.contains(said), "\(tried.text)")
            #expect(
                try station.store.runtimeSettings().notices?.address == "https://ntfy.sh/kitchen-7f3a", "saved first")
            let asked = trier.asked.withLock { $0 }
            #expect(asked.count == 1 && asked.first?.0.address == "https://ntfy.sh/kitchen-7f3a")
            #expect(asked.first?.1 == .en)
        }
        // Without a station that can send, no button; with the address emptied, no test.
        let plain = try WebTestStation()
        let browser = try await plain.pair()
        #expect(!(await plain.get("/settings", cookie: browser.cookie).text.contains("try_notices")))
        let trier = RecordingTrier(.sent)
        let station = try WebTestStation(noticeTrier: trier)
        let owner = try await station.pair()
        let saved = await station.post(
            "/settings", [("csrf", owner.csrf), ("notify_format", "ntfy"), ("notify_url", ""), ("try_notices", "1")],
            cookie: owner.cookie)
        #expect(saved.status == 303 && trier.asked.withLock { $0.isEmpty })
    }
}
