import SnapCore

/// The words on the screens, kept in one place so they read as one voice and tests can check them.
public enum ScreenText {
    /// "HH:MM:SS", hours not wrapped at 24.
    public static func clock(_ duration: Duration) -> String {
        let total = max(0, Int(duration.components.seconds))
        return "\(two(total / 3600)):\(two(total / 60 % 60)):\(two(total % 60))"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    public static func macros(_ macros: Macros) -> String {
        "P \(macros.protein) g · C \(macros.carbs) g · F \(macros.fats) g"
    }

    public static func modeTitle(_ mode: StationMode, group: String?) -> String {
        switch mode {
        case .meal: "Meal log"
        case .group: "Group · \(group ?? "")"
        }
    }

    public static func lockTitle(_ lock: LockScreen) -> String {
        switch lock.reason {
        case .group(let name): "You've already shared a photo with \(name) today — see you tomorrow!"
        case .aiLimit: "Today's \(lock.limit) meal analyses are used up — see you tomorrow!"
        }
    }

    public static func lockCountdown(_ lock: LockScreen) -> String {
        let noun = lock.reason == .aiLimit ? "Next analysis" : "Next photo"
        guard let remaining = lock.remaining else { return "\(noun) after midnight — waiting for the clock to be set" }
        return "\(noun) in \(clock(remaining))"
    }

    /// Title, detail and what the buttons do now, for an error screen.
    public static func problem(_ kind: ProblemScreen.Kind) -> (title: String, detail: String, hint: String) {
        switch kind {
        case .cameraMissing(let detail):
            ("Camera not found", detail, "It carries on when the camera is back")
        case .captureFailed(let detail):
            ("The photo could not be taken", detail, "Press to try again")
        case .processingFailed(let detail):
            ("The photo could not be processed", detail + " — the capture is kept", "Press to go back")
        case .aiFailed(.notConfigured):
            (
                "AI service not configured", "Set ai.key_source in the config to analyse meals",
                "Press to go back · Hold to switch mode"
            )
        case .aiFailed(let failure):
            ("Analysis failed", failure.message + " — the photo is kept", "Press to retry · Hold to discard")
        case .networkDown(let group):
            (
                "Saved — will send when online", "No network: the photo for \(group) waits in the queue",
                "It goes out by itself"
            )
        case .signInFailed(let group, let reason):
            (
                "Saved — will send when signed in", "Group sign-in failed: \(reason). The photo for \(group) waits",
                "It goes out by itself"
            )
        case .untrustedServer(let group):
            (
                "Saved — will send when the server can be verified",
                "The certificate of \(group)'s server could not be verified: is the station's clock right?",
                "It goes out by itself"
            )
        case .destinationFull(let group):
            (
                "Storage full — will send when there is space",
                "The folder of \(group) is full: the photo waits on the station", "It goes out by itself"
            )
        case .analysisQueued:
            (
                "Saved — will analyse later",
                "No answer from the AI service yet: the meal is analysed when it answers, and shown for review",
                "It goes out by itself"
            )
        case .uploadRejected(let detail):
            ("The photo could not be shared", detail, "Press to go back")
        case .storageFull:
            ("Storage full", "Free space on the SD card, or shorten storage.retention_hours", "Press to go back")
        case .storageFailed(let detail):
            ("The photo could not be saved", detail, "Press to go back")
        }
    }

    /// How long ago a photo was taken, as a slideshow caption says it: "just now", "12 min ago", "3 h ago".
    public static func age(_ age: Duration) -> String {
        let minutes = Int(age.components.seconds) / 60
        switch minutes {
        case ..<1: return "just now"
        case ..<60: return "\(minutes) min ago"
        case ..<(48 * 60): return "\(minutes / 60) h ago"
        default: return "\(minutes / (24 * 60)) days ago"
        }
    }

    /// "Kitchen · 3 h ago", and "2 / 5" when the slideshow has more than one photo.
    public static func slideCaption(_ slide: Slide) -> (who: String, place: String?) {
        let who = (slide.photo.member.isEmpty ? "A member" : slide.photo.member) + " · " + age(slide.age)
        return (who, slide.count > 1 ? "\(slide.index + 1) / \(slide.count)" : nil)
    }

    /// Title and detail of the quality gate's "retake?" screen.
    public static func retake(_ quality: PhotoQuality, mode: StationMode) -> (title: String, detail: String) {
        let use = mode == .meal ? "the analysis" : "the photo of the day"
        switch quality {
        case .tooDark: return ("Too dark — retake?", "More light makes \(use) better")
        case .tooBlurred: return ("Too blurred — retake?", "Hold still, or step back a little, for \(use)")
        case .good: return ("Retake?", "")
        }
    }

    public static func deviceNotice(_ devices: [DeviceKind]) -> String? {
        guard !devices.isEmpty else { return nil }
        let names = devices.map { kind -> String in
            switch kind {
            case .camera: "camera"
            case .buttons: "buttons"
            case .flash: "flash LED"
            case .display: "display"
            }
        }
        return "Not found: " + names.joined(separator: ", ")
    }
}
