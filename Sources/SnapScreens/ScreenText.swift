import SnapCore
import SnapText

/// The words on the screens, in the station's language: each is a catalog key (Sources/SnapText/Catalogs),
/// so they read as one voice in every language and tests can check them.
extension Words {
    public func lockTitle(_ lock: LockScreen) -> String {
        switch lock.reason {
        case .group(let name): self("lock.group", ["group": name])
        case .aiLimit: self("lock.ai", count: lock.limit)
        }
    }

    public func lockCountdown(_ lock: LockScreen) -> String {
        let ai = lock.reason == .aiLimit
        guard let remaining = lock.remaining else {
            return self(ai ? "lock.next_analysis.unset" : "lock.next_photo.unset")
        }
        return self(ai ? "lock.next_analysis.in" : "lock.next_photo.in", ["time": Self.clock(remaining)])
    }

    /// Title, detail and what the buttons do now, for an error screen. A device's, a library's or a server's
    /// own words (in English) go to the log, not the screen: the screen says it in the station's language.
    /// The group's sign-in keeps its reason, which names the config keys for the person who installs it.
    public func problem(_ kind: ProblemScreen.Kind) -> (title: String, detail: String, hint: String) {
        let waits = self("hint.goes_by_itself")
        switch kind {
        case .cameraMissing:
            return (self("problem.camera.title"), self("problem.camera.detail"), self("problem.camera.hint"))
        case .captureFailed:
            return (self("problem.capture.title"), self("problem.capture.detail"), self("hint.press_try_again"))
        case .processingFailed:
            return (self("problem.processing.title"), self("problem.processing.detail"), self("hint.press_back"))
        case .aiFailed(.notConfigured):
            return (self("ai.not_configured"), self("problem.ai_setup.detail"), self("problem.ai_setup.hint"))
        case .aiFailed(let failure):
            return (
                self("problem.ai.title"), self("problem.ai.detail", ["reason": aiFailure(failure)]),
                self("problem.ai.hint")
            )
        case .networkDown(let group):
            return (self("problem.offline.title"), self("problem.offline.detail", ["group": group]), waits)
        case .signInFailed(let group, let reason):
            return (
                self("problem.sign_in.title"), self("problem.sign_in.detail", ["group": group, "reason": reason]),
                waits
            )
        case .untrustedServer(let group):
            return (self("problem.untrusted.title"), self("problem.untrusted.detail", ["group": group]), waits)
        case .destinationFull(let group):
            return (
                self("problem.destination_full.title"), self("problem.destination_full.detail", ["group": group]),
                waits
            )
        case .analysisQueued:
            return (self("problem.queued.title"), self("problem.queued.detail"), waits)
        case .uploadRejected:
            return (self("problem.rejected.title"), self("problem.rejected.detail"), self("hint.press_back"))
        case .storageFull:
            return (self("problem.storage_full.title"), self("problem.storage_full.detail"), self("hint.press_back"))
        case .storageFailed:
            return (self("problem.storage.title"), self("problem.storage.detail"), self("hint.press_back"))
        case .shareUsed(let who):
            let name = ["name": person(who)]
            return (
                self("problem.share_used.title", name),
                self("problem.share_used.detail", count: who.aiShare ?? 0, name),
                self("problem.share_used.hint")
            )
        }
    }

    /// How long ago a photo was taken, as a slideshow caption says it: "just now", "12 min ago", "3 h ago".
    public func age(_ age: Duration) -> String {
        let minutes = Int(age.components.seconds) / 60
        switch minutes {
        case ..<1: return self("age.now")
        case ..<60: return self("age.minutes", count: minutes)
        case ..<(48 * 60): return self("age.hours", count: minutes / 60)
        default: return self("age.days", count: minutes / (24 * 60))
        }
    }

    /// "Kitchen · 3 h ago", and "2 / 5" when the slideshow has more than one photo.
    public func slideCaption(_ slide: Slide) -> (who: String, place: String?) {
        let who = (slide.photo.member.isEmpty ? self("slide.a_member") : slide.photo.member) + " · " + age(slide.age)
        return (who, slide.count > 1 ? "\(slide.index + 1) / \(slide.count)" : nil)
    }

    /// Title and detail of the quality gate's "retake?" screen.
    public func retake(_ quality: PhotoQuality, mode: StationMode) -> (title: String, detail: String) {
        let meal = mode == .meal
        switch quality {
        case .tooDark: return (self("retake.dark.title"), self(meal ? "retake.dark.meal" : "retake.dark.group"))
        case .tooBlurred:
            return (self("retake.blurred.title"), self(meal ? "retake.blurred.meal" : "retake.blurred.group"))
        case .good: return (self("retake.title"), "")
        }
    }

    /// "Installing update 2.0: 42 %", "Update 2.0 installed: restarting when idle", "The update to 2.0
    /// did not start: running 1.0 again".
    public func updateNote(_ note: UpdateNote) -> String {
        switch note {
        case .installing(let version, let percent):
            self("update.installing", ["version": version, "percent": self.percent(percent)])
        case .restarting(let version): self("update.restarting", ["version": version])
        case .rolledBack(let tried, let running): self("update.rolled_back", ["tried": tried, "running": running])
        }
    }

    /// "Making a backup: 35 %", "Checking a backup: 60 %".
    public func backupNote(_ note: BackupNote) -> String {
        switch note {
        case .making(let percent): self("backup.making", ["percent": self.percent(percent)])
        case .checking(let percent): self("backup.checking", ["percent": self.percent(percent)])
        }
    }

    public func deviceNotice(_ devices: [DeviceKind]) -> String? {
        guard !devices.isEmpty else { return nil }
        return self("devices.missing", ["devices": devices.map(device).joined(separator: ", ")])
    }

}
