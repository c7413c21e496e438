import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import SnapUpdates
import Testing

@testable import SnapWeb

/// The page's System update over the station's updater and RAUC's stand-in (Tests/Fakes/rauc.py): the
/// slots, a bundle installed with its progress on the page and the display, and what is refused.
@Suite("The owner's page: the system update", .serialized)
struct UpdatePageTests {
    let folder = TemporaryDirectory("update-page")

    private func station(runsJobs: Bool = true) throws -> (WebTestStation, FakeRAUC, SlotUpdater) {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let updater = SlotUpdater(
            rauc: rauc.path, folder: folder.path + "/records", imageVersion: "1.0.0", logger: Logger(label: "test"))
        let usb = folder.path + "/media"
        let station = try WebTestStation(
            updater: updater, runsJobs: runsJobs, configure: { $0.update.usbFolder = usb })
        return (station, rauc, updater)
    }

    @Test("should show the slots, install a bundle from a USB stick with its progress, and tell the display")
    func installs() async throws {
        let (station, rauc, updater) = try station()
        let browser = try await station.pair()
        let trial = await station.get("/update", cookie: browser.cookie).text
        #expect(trial.contains("Running 1.0.0 from slot A.") && trial.contains("running, on trial"))
        #expect(trial.contains("No bundle here yet"))
        try FileManager.default.createDirectory(atPath: folder.path + "/media/stick", withIntermediateDirectories: true)
        let bundle = try rauc.bundle("v2.raucb", version: "2.0.0")
        try FileManager.default.moveItem(atPath: bundle, toPath: folder.path + "/media/stick/v2.raucb")
        // On trial, the running slot takes no update: it may yet be the one a restart leaves.
        _ = await station.post(
            "/update/install", [("csrf", browser.csrf), ("bundle", folder.path + "/media/stick/v2.raucb")],
            cookie: browser.cookie)
        #expect(
            await eventually {
                await station.get("/update", cookie: browser.cookie).text.contains(
                    "Not installed: the running system is still on trial")
            })
        _ = await updater.startUp()
        try await updater.confirm()
        let page = await station.get("/update", cookie: browser.cookie).text
        #expect(page.contains("running, confirmed") && page.contains("v2.raucb <small>on a USB stick</small>"))
        let install = await station.post(
            "/update/install", [("csrf", browser.csrf), ("bundle", folder.path + "/media/stick/v2.raucb")],
            cookie: browser.cookie)
        #expect(install.status == 303 && install.header("Location") == "/update")
        var shown = ""
        #expect(
            await eventually {
                shown = await station.get("/update", cookie: browser.cookie).text
                return shown.contains("Installed 2.0.0")
            })
        #expect(shown.contains("2.0.0 is installed and waits for the station&#39;s next idle moment"))
        #expect(station.link.events.contains(.update(.installing(version: "2.0.0", percent: 40))))
        #expect(station.link.events.last == .update(.restarting(version: "2.0.0")))
        #expect(await updater.status().pending == UpdateStatus.Pending(slot: "B", version: "2.0.0"))
    }

    @Test("should refuse an older bundle naming both versions, and install it once the owner confirms it")
    func downgrades() async throws {
        let (station, rauc, updater) = try station()
        let browser = try await station.pair()
        _ = await updater.startUp()
        try await updater.confirm()
        let early = await station.get("/update/downgrade", cookie: browser.cookie)
        #expect(early.header("Location") == "/update", "no refusal to confirm yet")
        try FileManager.default.createDirectory(atPath: folder.path + "/media", withIntermediateDirectories: true)
        let bundle = folder.path + "/media/v0.9.raucb"
        try FileManager.default.moveItem(atPath: try rauc.bundle("v0.9.raucb", version: "0.9.0"), toPath: bundle)
        _ = await station.post("/update/install", [("csrf", browser.csrf), ("bundle", bundle)], cookie: browser.cookie)
        var shown = ""
        #expect(
            await eventually {
                shown = await station.get("/update", cookie: browser.cookie).text
                return shown.contains("Not installed")
            })
        #expect(
            shown.contains("Not installed: this bundle holds 0.9.0, older than the 1.0.0 that runs."),
            "\(shown)")
        #expect(shown.contains("<a class=\"danger\" href=\"/update/downgrade\">Install the older version</a>"))
        #expect(try rauc.installsAsked().isEmpty, "RAUC was not asked to install")
        #expect(try rauc.grubenv()["ORDER"] as? String == "A B" && rauc.grubenv()["B_OK"] as? Int == 0)

        // The second step says what happens, and asks with the session's token.
        let asking = await station.get("/update/downgrade", cookie: browser.cookie)
        #expect(asking.status == 200 && asking.text.contains("Install the older 0.9.0?"))
        #expect(asking.text.contains("in place of 1.0.0") && asking.text.contains("comes back to 1.0.0 by itself"))
        #expect(asking.text.contains("<input type=\"hidden\" name=\"csrf\" value=\"\(browser.csrf)\">"))
        #expect(asking.text.contains("action=\"/update/downgrade\"") && asking.text.contains("Keep 1.0.0"))
        let forged = await station.post("/update/downgrade", [("bundle", bundle)], cookie: browser.cookie)
        #expect(try forged.status == 403 && rauc.installsAsked().isEmpty, "no form without the token")
        let confirmed = await station.post(
            "/update/downgrade", [("csrf", browser.csrf), ("bundle", bundle)], cookie: browser.cookie)
        #expect(confirmed.status == 303 && confirmed.header("Location") == "/update")
        #expect(
            await eventually {
                shown = await station.get("/update", cookie: browser.cookie).text
                return shown.contains("Installed 0.9.0")
            })
        #expect(try rauc.installsAsked() == [bundle])
        #expect(await updater.status().pending == UpdateStatus.Pending(slot: "B", version: "0.9.0"))
        #expect(station.link.events.last == .update(.restarting(version: "0.9.0")))
    }

    @Test("should refuse a bundle it does not offer, and say why RAUC refused one")
    func refuses() async throws {
        let (station, rauc, updater) = try station()
        let browser = try await station.pair()
        _ = await updater.startUp()
        try await updater.confirm()
        let elsewhere = try rauc.bundle("v2.raucb", version: "2.0.0")
        let odd = await station.post(
            "/update/install", [("csrf", browser.csrf), ("bundle", elsewhere)], cookie: browser.cookie)
        #expect(odd.status == 404, "only the bundles the page lists: \(odd.text.prefix(200))")
        try FileManager.default.createDirectory(atPath: folder.path + "/media", withIntermediateDirectories: true)
        let unsigned = try rauc.bundle("unsigned.raucb", version: "2.0.0", signed: false)
        try FileManager.default.moveItem(atPath: unsigned, toPath: folder.path + "/media/unsigned.raucb")
        _ = await station.post(
            "/update/install", [("csrf", browser.csrf), ("bundle", folder.path + "/media/unsigned.raucb")],
            cookie: browser.cookie)
        var shown = ""
        #expect(
            await eventually {
                shown = await station.get("/update", cookie: browser.cookie).text
                return shown.contains("Not installed")
            })
        #expect(shown.contains("signature verification failed") && shown.contains("The station runs as before"))
        #expect(station.link.events.last == .update(nil), "the display's note goes")
        #expect(try rauc.grubenv()["ORDER"] as? String == "A B")
    }

    @Test("should stop the station within its stop timeout when SIGTERM comes during an install, ending RAUC's client")
    func stopsDuringAnInstall() async throws {
        let (station, rauc, updater) = try station(runsJobs: false)
        // The page's jobs in a service group, as the station runs them (Station.run).
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: station.jobs)], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let ended = Lock(false)
        let services = Task {
            try await group.run()
            ended.withLock { $0 = true }
        }
        let browser = try await station.pair()
        _ = await updater.startUp()
        try await updater.confirm()
        try FileManager.default.createDirectory(atPath: folder.path + "/media", withIntermediateDirectories: true)
        let pidFile = folder.path + "/client.pid"
        let bundle = try rauc.bundle("v2.raucb", version: "2.0.0", hangs: pidFile)
        try FileManager.default.moveItem(atPath: bundle, toPath: folder.path + "/media/v2.raucb")
        _ = await station.post(
            "/update/install", [("csrf", browser.csrf), ("bundle", folder.path + "/media/v2.raucb")],
            cookie: browser.cookie)
        #expect(
            await eventually {
                await station.get("/update", cookie: browser.cookie).text.contains("Copying image to rootfs.1")
                    && FileManager.default.fileExists(atPath: pidFile)
            }, "RAUC's client is writing the slot")
        let client = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8)))
        #expect(kill(client, 0) == 0, "the client runs")

        // SIGTERM: ServiceLifecycle's graceful shutdown, as the signal starts it.
        await group.triggerGracefulShutdown()
        let stopped = await eventually { ended.withLock { $0 } }
        #expect(stopped, "the page's jobs ended within systemd's TimeoutStopSec (systemd/snapstation.service)")
        let running = kill(client, 0) == 0
        #expect(!running, "RAUC's client was ended, not left running")
        if running { kill(client, SIGKILL) }
        try await services.value
        #expect(station.jobs.running == 0)
        #expect(
            await eventually {
                await station.get("/update", cookie: browser.cookie).text.contains("stopped with the station")
            }, "the page says how the install ended")
        // The station takes no new page job once it is stopping; the page says so.
        #expect(!station.jobs.start("a late job") {})
        #expect(try rauc.grubenv()["ORDER"] as? String == "A B", "the slot that was being written is not made first")
    }
}
