import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapTestSupport
import Synchronization
import Testing

@testable import SnapUpdates

/// The updater against RAUC's stand-in (Tests/Fakes/rauc.py, rauc 1.8's output and its GRUB backend's
/// rules): what a start finds, confirming a slot, installing, the update waiting for its restart, and a
/// rollback said as such.
@Suite("SlotUpdater against RAUC's stand-in")
struct SlotUpdaterTests {
    let folder = TemporaryDirectory("updates")

    private func system(
        logger: Logger = Logger(label: "update-test"), backup: (@Sendable () throws -> String)? = nil
    ) throws -> (FakeRAUC, SlotUpdater) {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let updater = SlotUpdater(
            rauc: rauc.path, folder: folder.path + "/state/updates", imageVersion: "1.0.0",
            bootID: { rauc.bootID() }, logger: logger, backup: backup)
        return (rauc, updater)
    }

    @Test("should make the backup before RAUC writes, and install nothing when it cannot be made")
    func backupFirst() async throws {
        struct Full: Error, CustomStringConvertible { var description: String { "the card is full" } }
        let failing = Atomic<Bool>(true)
        let made = Atomic<Int>(0)
        let log = CapturedLog()
        let (rauc, updater) = try system(logger: log.logger) {
            guard !failing.load(ordering: .relaxed) else { throw Full() }
            made.add(1, ordering: .relaxed)
            return "/state/backup/before-update.tar"
        }
        _ = await updater.startUp()
        try await updater.confirm()
        let v2 = try rauc.bundle("v2.raucb", version: "2.0.0")
        await #expect(throws: UpdateFailure.noBackup("the card is full")) {
            try await updater.install(bundle: v2) { _, _, _ in Issue.record("RAUC wrote without a backup") }
        }
        #expect(try rauc.installsAsked().isEmpty, "RAUC was not asked")
        #expect(log.all.contains { $0.contains("not installed: no backup could be made: the card is full") })
        failing.store(false, ordering: .relaxed)
        #expect(try await updater.install(bundle: v2) { _, _, _ in } == "2.0.0")
        #expect(made.load(ordering: .relaxed) == 1, "one backup")
        let backup = log.all.firstIndex {
            $0.contains("a backup before installing 2.0.0: /state/backup/before-update.tar")
        }
        let install = log.all.firstIndex { $0.contains("installing 2.0.0 into slot B") }
        if let backup, let install {
            #expect(backup < install, "the backup before RAUC is asked: \(log.all)")
        } else {
            Issue.record("the backup and the install are both logged: \(log.all)")
        }
    }

    /// A station confirmed on A (1.0.0), updated to 2.0.0 in B and confirmed there.
    private func updatedToV2(logger: Logger = Logger(label: "update-test")) async throws -> (FakeRAUC, SlotUpdater) {
        let (rauc, updater) = try system(logger: logger)
        _ = await updater.startUp()
        try await updater.confirm()
        _ = try await updater.install(bundle: try rauc.bundle("v2.raucb", version: "2.0.0")) { _, _, _ in }
        #expect(try rauc.boot() == "B")
        _ = await updater.startUp()
        try await updater.confirm()
        return (rauc, updater)
    }

    @Test("should read rauc 1.8's status: the booted slot, the primary, each slot's state and bundle version")
    func readsStatus() throws {
        let json = """
            {"compatible":"snapstation-x86-vm","variant":"","booted":"B","boot_primary":"rootfs.1","slots":[
            {"rootfs.1":{"class":"rootfs","device":"/dev/vda4","type":"ext4","bootname":"B","state":"booted",
            "parent":null,"mountpoint":"/","boot_status":"good","slot_status":{"bundle":{"compatible":
            "snapstation-x86-vm","version":"2.0.0"},"status":"ok"}}},
            {"rootfs.0":{"class":"rootfs","device":"/dev/vda3","type":"ext4","bootname":"A","state":"inactive",
            "parent":null,"mountpoint":null,"boot_status":"bad"}}]}
            """
        let status = try RAUC.status(json: json)
        #expect(status.booted == "B" && status.primary == "rootfs.1" && status.compatible == "snapstation-x86-vm")
        #expect(status.slots.map(\.name) == ["rootfs.0", "rootfs.1"])
        #expect(status.bootedSlot?.version == "2.0.0" && status.bootedSlot?.bootGood == true)
        #expect(status.slots.first?.version == nil && status.slots.first?.bootGood == false)
        #expect(RAUC.progress(" 20% Checking bundle")! == (20, "Checking bundle"))
        #expect(RAUC.progress("100% Installing done.")! == (100, "Installing done."))
        #expect(RAUC.progress("Installing `/x.raucb` succeeded") == nil)
        // A tampered bundle through rauc 1.8's service: its reason is on stdout, not stderr.
        let output = Data(
            "  0% Installing\n 20% Checking bundle\nLastError: Failed mounting bundle: Input/output error\n".utf8)
        #expect(
            RAUC.failure(output: output, errors: Data("Installing `/t.raucb` failed\n".utf8))
                == "Failed mounting bundle: Input/output error Installing `/t.raucb` failed")
        #expect(RAUC.failure(output: Data(), errors: Data("\n".utf8)) == nil)
        // `rauc info` of an unsigned bundle, as the VM's rauc 1.8 says it: the reason without its chatter.
        let chatter =
            "rauc-Message: 22:00:18.073: Using central status file /data/rauc/central.raucs\n"
            + "rauc-Message: 22:00:18.117: Reading bundle: /test/unsigned.raucb\n"
            + "Invalid bundle format: Signature size is 0\n"
        let reason = RAUC.failure(output: Data(), errors: Data(chatter.utf8))
        #expect(reason == "Invalid bundle format: Signature size is 0")
    }

    @Test("should confirm the running slot, install into the other, and say it waits for a restart")
    func installs() async throws {
        let (rauc, updater) = try system()
        let first = await updater.startUp()
        #expect(
            first.status.managed && first.status.booted == "A" && !first.status.confirmed && first.note == nil,
            "\(first.status)")
        // The running slot is being tried (GRUB spent its try): no update may go in before it is confirmed.
        let early = try rauc.bundle("v2.raucb", version: "2.0.0")
        await #expect(throws: UpdateFailure.unconfirmed) { try await updater.install(bundle: early) { _, _, _ in } }
        try await updater.confirm()
        #expect(await updater.status().confirmed)
        let steps = Lock<[Int]>([])
        let version = try await updater.install(bundle: early) { version, percent, _ in
            #expect(version == "2.0.0")
            steps.withLock { $0.append(percent) }
        }
        #expect(version == "2.0.0" && steps.withLock { $0 } == [0, 20, 40, 80, 100])
        let waiting = await updater.status()
        #expect(waiting.pending == UpdateStatus.Pending(slot: "B", version: "2.0.0"))
        // The running image's slot by its os-release's version (RAUC knows none), the other by the bundle's.
        #expect(waiting.slots.map(\.version) == ["1.0.0", "2.0.0"])
        #expect(try rauc.grubenv()["ORDER"] as? String == "B A")

        // The restart: B is tried, runs unconfirmed (no update pending while it is tried), then is confirmed.
        #expect(try rauc.boot() == "B")
        let tried = await updater.startUp()
        #expect(tried.status.version == "2.0.0" && !tried.status.confirmed && tried.status.pending == nil)
        #expect(tried.note == nil)
        try await updater.confirm()
        let updated = await updater.status()
        #expect(updated.confirmed && updated.outcome == .updated(version: "2.0.0", from: "1.0.0"))
        // A later ordinary boot of B: GRUB spends its try, and the slot confirmed before is confirmed at once.
        #expect(try rauc.boot() == "B")
        #expect(await updater.startUp().status.confirmed)
    }

    @Test("should say that an update did not start when the station comes back on the old slot")
    func rollsBack() async throws {
        let (rauc, updater) = try system()
        _ = await updater.startUp()
        try await updater.confirm()
        _ = try await updater.install(bundle: try rauc.bundle("v2.raucb", version: "2.0.0")) { _, _, _ in }
        // B is tried and never confirmed; the next boot passes it over.
        #expect(try rauc.boot() == "B")
        #expect(try rauc.boot() == "A")
        let back = await updater.startUp()
        #expect(back.note == .rolledBack(tried: "2.0.0", running: "1.0.0"))
        #expect(back.status.outcome == .rolledBack(tried: "2.0.0", running: "1.0.0"))
        #expect(try rauc.grubenv()["B_OK"] as? Int == 0, "the slot that did not start is marked bad")
        // Said once: the next start finds nothing new.
        #expect(await updater.startUp().note == nil)
        try await updater.confirm()
        #expect(await updater.status().pending == nil, "B is no update waiting: it was tried")
        // A power cut before A's mark-good on some later boot: GRUB's last resort never takes the bad B.
        #expect(try rauc.boot() == "A")
        #expect(try rauc.boot() == "A")
    }

    @Test("should go back, once, to the slot confirmed last when a power cut at its start left the old one running")
    func returnsAfterAPowerCut() async throws {
        let (rauc, updater) = try await updatedToV2()
        // Days later the power goes while B starts, before the station confirms it: GRUB passes over B.
        for cut in 1...2 {
            #expect(try rauc.boot() == "B")
            #expect(try rauc.boot() == "A")
            let back = await updater.startUp()
            #expect(back.note == nil, "cut \(cut): no update failed")
            #expect(back.status.version == "1.0.0" && back.status.confirmed, "A ran 1.0.0 confirmed before: at once")
            // The station's process starts again before the restart (a crash, the watchdog): still going back.
            #expect(await updater.startUp().note == nil)
            #expect(try rauc.grubenv()["B_OK"] as? Int == 1)
            try await updater.confirm()
            let waiting = await updater.status()
            #expect(waiting.pending == UpdateStatus.Pending(slot: "B", version: "2.0.0"), "cut \(cut)")
            #expect(waiting.outcome == .updated(version: "2.0.0", from: "1.0.0"))
            #expect(try rauc.grubenv()["ORDER"] as? String == "B A")
            // The restart at an idle moment: B comes up and is confirmed at once.
            #expect(try rauc.boot() == "B")
            let again = await updater.startUp()
            #expect(again.note == nil && again.status.confirmed && again.status.version == "2.0.0")
            // A's version, which RAUC does not know (no bundle went there), as the station confirmed it.
            #expect(again.status.slots.map(\.version) == ["1.0.0", "2.0.0"])
            try await updater.confirm()
            #expect(await updater.status().pending == nil)
        }
        // Once more, and this time B does not come up on the way back either: A stays, and says so.
        #expect(try rauc.boot() == "B")
        #expect(try rauc.boot() == "A")
        _ = await updater.startUp()
        try await updater.confirm()
        #expect(try rauc.boot() == "B")
        #expect(try rauc.boot() == "A")
        let stays = await updater.startUp()
        #expect(stays.note == .rolledBack(tried: "2.0.0", running: "1.0.0"))
        #expect(try rauc.grubenv()["B_OK"] as? Int == 0, "left behind for good")
        try await updater.confirm()
        #expect(await updater.status().pending == nil)
        #expect(await updater.startUp().note == nil, "said once")
    }

    @Test("should try a slot again when a bundle goes into it, even with a version it ran before")
    func reinstalledVersionIsTried() async throws {
        let (rauc, updater) = try await updatedToV2()
        // Back to 1.0.0 (the owner asked for the older version), into A, which ran 1.0.0 confirmed before: a
        // new system all the same.
        let v1 = try rauc.bundle("v1.raucb", version: "1.0.0")
        _ = try await updater.install(bundle: v1, allowDowngrade: true) { _, _, _ in }
        #expect(try rauc.boot() == "A")
        let tried = await updater.startUp()
        #expect(tried.status.version == "1.0.0" && !tried.status.confirmed, "waits out confirm_seconds")
    }

    @Test("should refuse a bundle older than the running system, naming both versions, before RAUC is asked")
    func refusesOlder() async throws {
        let log = CapturedLog()
        let (rauc, updater) = try await updatedToV2(logger: log.logger)
        let before = try rauc.grubenv()
        let asked = try rauc.installsAsked()
        #expect(asked.count == 1, "the updater asks RAUC to install: \(asked)")
        for (name, version) in [("v1.raucb", "1.0.0"), ("rc.raucb", "2.0.0-rc.2"), ("v1.9.raucb", "1.10.9")] {
            let older = try rauc.bundle(name, version: version)
            await #expect(throws: UpdateFailure.older(bundle: version, running: "2.0.0")) {
                try await updater.install(bundle: older) { _, _, _ in Issue.record("\(version): RAUC wrote") }
            }
            #expect(
                "\(UpdateFailure.older(bundle: version, running: "2.0.0"))"
                    == "this bundle holds \(version), older than the 2.0.0 that runs")
            let said = "\(older) not installed: this bundle holds \(version), older than the 2.0.0 that runs"
            #expect(log.all.contains { $0.contains(said) }, "the station's log says it: \(log.all.suffix(3))")
        }
        #expect(try rauc.installsAsked() == asked, "RAUC was not asked to install an older bundle")
        #expect(try rauc.grubenv()["ORDER"] as? String == before["ORDER"] as? String)
        #expect(try rauc.grubenv()["A_OK"] as? Int == before["A_OK"] as? Int, "slot A untouched")
        let status = await updater.status()
        #expect(status.pending == nil && status.slots.map(\.version) == ["1.0.0", "2.0.0"])
        #expect(updater.records.installed == nil && status.outcome == .updated(version: "2.0.0", from: "1.0.0"))
    }

    @Test("should install an older bundle when the owner asks for it")
    func installsOlderWhenAsked() async throws {
        let log = CapturedLog()
        let (rauc, updater) = try await updatedToV2(logger: log.logger)
        let v1 = try rauc.bundle("v1.raucb", version: "1.0.0")
        let version = try await updater.install(bundle: v1, allowDowngrade: true) { _, _, _ in }
        #expect(try version == "1.0.0" && rauc.installsAsked().last == v1)
        #expect(await updater.status().pending == UpdateStatus.Pending(slot: "A", version: "1.0.0"))
        let said = "installing 1.0.0 into slot A, older than the 2.0.0 that runs, as the owner asked"
        #expect(log.all.contains { $0.contains(said) }, "\(log.all.suffix(3))")
    }

    @Test("should install the same version again and a newer one as before, with or without the owner's leave")
    func installsSameAndNewer() async throws {
        let (rauc, updater) = try await updatedToV2()
        for (name, version) in [
            ("again.raucb", "2.0.0"), ("rebuilt.raucb", "2.0.0+rebuilt"), ("rc.raucb", "2.1.0-rc.1"),
            ("v2.1.raucb", "2.1.0"), ("v10.raucb", "10.0.0"),
        ] {
            let bundle = try rauc.bundle(name, version: version)
            #expect(try await updater.install(bundle: bundle) { _, _, _ in } == version)
            #expect(await updater.status().pending == UpdateStatus.Pending(slot: "A", version: version))
        }
        let again = try rauc.bundle("again-asked.raucb", version: "2.0.0")
        #expect(try await updater.install(bundle: again, allowDowngrade: true) { _, _, _ in } == "2.0.0")
        #expect(try rauc.installsAsked().count == 7, "one for v2, then each of these")
    }

    @Test("should take the running system's version from its image's os-release, the binary's elsewhere")
    func imageVersion() throws {
        let path = folder.path + "/os-release"
        try "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nIMAGE_ID=snapstation\nIMAGE_VERSION=1.4.2\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(SystemImage.version(osRelease: path) == "1.4.2")
        try "IMAGE_ID='snapstation'\nIMAGE_VERSION=\"2.0.0-rc1\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(SystemImage.version(osRelease: path) == "2.0.0-rc1")
        try "ID=debian\nIMAGE_ID=other\nIMAGE_VERSION=9\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(SystemImage.version(osRelease: path) == StationVersion.current)
        #expect(SystemImage.version(osRelease: folder.path + "/none") == StationVersion.current)
    }

    @Test("should refuse an unsigned bundle and one for another system with RAUC's words, writing nothing")
    func refuses() async throws {
        let (rauc, updater) = try system()
        _ = await updater.startUp()
        try await updater.confirm()
        let before = try rauc.grubenv()
        let unsigned = try rauc.bundle("unsigned.raucb", version: "2.0.0", signed: false)
        await #expect(
            throws: UpdateFailure.refused(
                "signature verification failed: Verify error: unable to get local issuer certificate"
            )
        ) {
            try await updater.install(bundle: unsigned) { _, _, _ in }
        }
        let foreign = try rauc.bundle("pi.raucb", version: "2.0.0", compatible: "snapstation-rpi")
        do {
            _ = try await updater.install(bundle: foreign) { _, _, _ in }
            Issue.record("a bundle for a Pi was installed")
        } catch {
            #expect("\(error)".contains("Compatible mismatch"))
        }
        #expect(try rauc.grubenv()["ORDER"] as? String == before["ORDER"] as? String)
        #expect(await updater.status().pending == nil && updater.records.installed == nil)
        // Half written: the slot stays bad and is no update.
        let broken = try rauc.bundle("broken.raucb", version: "2.0.0", fails: "bundle payload is corrupted")
        // Through the service RAUC gives its reason on stdout ("LastError: …"), the last line on stderr.
        await #expect(throws: UpdateFailure.refused("bundle payload is corrupted Installing `\(broken)` failed")) {
            try await updater.install(bundle: broken) { _, _, _ in }
        }
        #expect(try rauc.grubenv()["B_OK"] as? Int == 0 && updater.records.installed == nil)
    }

    @Test("should say updates are not set up where there is no RAUC")
    func notManaged() async {
        let updater = SlotUpdater(
            rauc: folder.path + "/no-rauc", folder: folder.path + "/state/updates", imageVersion: "1.0.0",
            logger: Logger(label: "update-test"))
        let status = await updater.status()
        #expect(!status.managed && status.version == "1.0.0" && status.problem?.contains("not installed") == true)
        await #expect(throws: UpdateFailure.self) { try await updater.install(bundle: "/x.raucb") { _, _, _ in } }
    }
}
