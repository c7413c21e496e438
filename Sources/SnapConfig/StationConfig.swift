import SnapCore
import SnapText

/// The whole configuration file. Every key has a default; docs/snapstation.example.toml is the reference.
public struct StationConfig: Sendable, Hashable {
    public var station = Station()
    public var camera = Camera()
    public var gpio = GPIO()
    public var display = Display()
    public var countdown = Countdown()
    public var processing = Processing()
    public var ai = AI()
    public var group = Group()
    public var storage = Storage()
    public var web = Web()
    public var jar = Jar()
    public var update = Update()
    /// The daily goals (`[goals]`: kcal, protein, carbs, fats; 0 = none); the owner can change them on the page.
    public var goals = Macros.zero
    /// The people who share the station (`[household]`): how long the person picked at the station stays
    /// picked. The people themselves are added on the owner's page.
    public var household = HouseholdSection()
    /// Notices to the household's phones (`[notify]`: url, format, off, reminder); none by default, and
    /// the owner can set them on the page.
    public var notify = NoticeSettings.none
    /// The home's MQTT broker, where Home Assistant finds the station (`[mqtt]`); none by default.
    public var mqtt = MQTT()
    /// The owner's settings' rule as the file says it, kept where the owner's settings taken at start
    /// replaced the file's values (`starting(with:)`): the config's side stays the file's.
    var fileRule: SettingsRule?

    public init() {}

    public struct Station: Sendable, Hashable {
        public var name = "SnapStation"
        public var defaultMode = StationMode.group
        /// An IANA zone such as "Europe/Berlin"; "" means the system's zone.
        public var timeZone = ""
        /// The language of the display, the page and the AI's answers; the owner can change it on the page.
        public var language = Language.en
        /// The hours the flash stays off and the display dims ("22:00-07:00"); none by default.
        public var quietHours = QuietHours.never
    }

    public struct Camera: Sendable, Hashable {
        public enum Backend: String, Sendable, Hashable, CaseIterable { case simulated, libcamera, v4l2, none }
        public var backend = Backend.simulated
        /// libcamera: a camera id, an index, or "first"; v4l2: a device path.
        public var id = "first"
        public var previewWidth = 800
        public var previewHeight = 480
        public var previewFPS = 15
        public var stillWidth = 2028
        public var stillHeight = 1520
        /// How long a still may take after the shutter before the capture counts as failed.
        public var stillSeconds = 5
        public var rotation = Rotation.none
        public var hflip = false
        public var vflip = false
        /// Simulated camera: a folder of JPEG files to show in turn; "" draws a moving test scene.
        public var simulatedSource = ""
        /// More cameras the owner can switch to (the menu, the owner's page), each "BACKEND:ID" as
        /// `backend` and `id` name one: "v4l2:/dev/video0", "libcamera:1", "simulated:". They share the
        /// sizes, rotation and flips above.
        public var others: [Other] = []

        public struct Other: Sendable, Hashable {
            public var backend: Backend
            public var id: String
            public init(backend: Backend, id: String) {
                self.backend = backend
                self.id = id
            }

            /// What the menu and the page call it: "Simulated", "libcamera", "libcamera 1", "USB video0".
            public var name: String {
                switch backend {
                case .simulated: "Simulated"
                case .libcamera: id == "first" ? "libcamera" : "libcamera \(id)"
                case .v4l2: id == "first" ? "USB camera" : "USB \(id.split(separator: "/").last ?? "")"
                case .none: "none"
                }
            }
        }

        /// Every camera, the main one first, as the menu numbers them.
        public var all: [Other] { [Other(backend: backend, id: id)] + others }
    }

    public struct GPIO: Sendable, Hashable {
        public enum Backend: String, Sendable, Hashable, CaseIterable { case simulated, gpiod, none }
        public var backend = Backend.simulated
        public var chip = "gpiochip0"
        public var shutterLine: GPIOLine? = .name("GPIO17")
        public var modeLine: GPIOLine?
        public var ledLine: GPIOLine? = .name("GPIO27")
        public var activeLow = true
        public var bias = LineBias.pullUp
        public var debounceMS = 30
        public var longPressMS = 800
        /// Simulated buttons: a timed script such as "2s press, 10s hold"; "" reads standard input only.
        public var script = ""
    }

    public struct Display: Sendable, Hashable {
        public enum Backend: String, Sendable, Hashable, CaseIterable { case headless, drm, fbdev, none }
        public var backend = Backend.headless
        /// drm: a card such as /dev/dri/card1, "" for the first with a connected display; fbdev: /dev/fb0.
        public var device = ""
        /// drm: a connector such as "HDMI-A-1" or "DSI-1"; "" for the first with a display attached.
        public var connector = ""
        /// The headless display's size; drm and fbdev take the size of the mode.
        public var width = 800
        public var height = 480
        public var rotation = Rotation.none
        /// Headless: where PNG frames go; "" means `frames` in the storage folder.
        public var framesDir = ""
        /// Headless: at most this many preview frames per second are written (screen changes always are).
        public var previewPNGFPS = 1.0
        /// After this many seconds on the ready screen without a press, the idle screen shows (the
        /// group's slideshow, or a dimmed clock); 0 never.
        public var idleSeconds = 60
        /// How long each photo of the group's slideshow shows.
        public var slideSeconds = 8
        /// "23:00-07:00": the display sleeps (DPMS off) on the idle screen during these local hours; ""
        /// never.
        public var nightHours = ""
    }

    public struct Countdown: Sendable, Hashable {
        public var seconds = 3
        public var flash = true
    }

    public struct Processing: Sendable, Hashable {
        public var maxSize = 2048
        public var quality = 80
        public var thumbnailSize = 320
        public var filter = PhotoFilter.sepia
        /// 0 leaves the photo as it is; 1 applies the filter fully.
        public var intensity = 0.0
        public var sticker = true
        public var stickerOutline = 12
        /// Send the sticker with the group photo (the folder backend writes it beside the photo).
        public var shareSticker = false
        public var qualityGate = true
        public var minBrightness = 0.12
        public var minSharpness = 30.0
    }

    public struct AI: Sendable, Hashable {
        public var baseURL = "https://api.openai.com/v1"
        public var model = "gpt-4o-mini"
        public var detail = ImageDetail.low
        public var keySource = KeySource.environment("OPENAI_API_KEY")
        public var dailyLimit = 10
        public var dietary: [DietaryPreference] = []
        public var timeoutSeconds = 30
        /// How long the person at the station waits for the answer; past it the meal goes to the delayed
        /// queue and its result shows when it comes.
        public var waitSeconds = 20
        public var autoSaveSeconds = 20
    }

    public struct Group: Sendable, Hashable {
        public enum Backend: String, Sendable, Hashable, CaseIterable { case folder, supabase }
        /// The groups the station shares with, in the mode button's order; empty turns group mode off.
        public var names = ["Friends"]
        public var backend = Backend.folder
        /// Folder backend: where photos and their JSON sidecars go; "" means `outbox` in the storage folder.
        public var folder = ""
        /// Supabase backend: the project URL.
        public var url = ""
        public var bucket = "snapstation"
        /// Supabase backend: the station's Supabase Auth user; its password is at `keySource`. Empty: the
        /// key at `keySource` is a user's access token as it is (which a real project expires within an
        /// hour; for a local stand-in only).
        public var email = ""
        /// Supabase backend: the station's password (or, without `email`, a user's access token), a secret.
        public var keySource = KeySource.environment("SUPABASE_KEY")
        /// Supabase backend: the project's public key (the legacy anon JWT or `sb_publishable_…`), sent as
        /// `apikey`; required.
        public var anonKey = ""
        public var reviewSeconds = 3
        /// How often the station looks for the photos the other members shared.
        public var inboxMinutes = 5
    }

    public struct MQTT: Sendable, Hashable {
        /// The broker's address, its user, the protocol and whether the hub may start the countdown.
        public var broker = MQTTSettings.none
        /// The user's password, a secret; or the one entered on the page's Keys.
        public var keySource = KeySource.environment("MQTT_PASSWORD")
        /// The CA certificates (PEM) an `mqtts` broker's certificate is checked against; "" for the system's.
        public var caFile = ""
        /// Home Assistant's discovery prefix (its MQTT integration's setting).
        public var discoveryPrefix = "homeassistant"
    }

    public struct Storage: Sendable, Hashable {
        public var dir = "/var/lib/snapstation"
        public var retentionHours = 48
        /// Below this much free space the station says "storage full" instead of failing mid-write.
        public var minFreeMB = 64
    }

    public struct Web: Sendable, Hashable {
        /// Serve the owner's page.
        public var enabled = true
        /// The address to listen on: "0.0.0.0" for every IPv4 interface (the phone is on the same network).
        public var address = "0.0.0.0"
        /// 0 takes a free port and logs it (for tests).
        public var port = 8080
        /// How the page is served: plain http on the home network (as Home Assistant and OctoPrint are),
        /// https with a certificate the station makes itself, or with the PEM files below.
        public enum TLS: String, Sendable, Hashable, CaseIterable {
            case off
            case selfSigned = "self-signed"
            case files
        }
        /// "files" when both files are set, "off" otherwise.
        public var tls = TLS.off
        /// PEM files for `tls = "files"`; the session cookie gets `Secure` over https.
        public var tlsCertificate = ""
        public var tlsKey = ""
        /// Served over https, in either way.
        public var servesHTTPS: Bool { tls != .off }
        /// The address the pairing QR code shows; "" makes one from the station's first network address.
        public var publicURL = ""
        /// Settings the page may not change, by their config key (`RuntimeSettings.keys`).
        public var locked: [String] = []
        /// A paired browser must pair again this many days after pairing, however often it is used: a
        /// cookie copied off a phone works for at most this long. 90 by default: a visit to the station
        /// a season. (Unused for 30 days, a pairing ends sooner.)
        public var sessionDays = 90
        /// More host names the page answers to (a DNS name that points at the station). Its addresses,
        /// its `.local` names and `localhost` always work; any other Host is refused (DNS rebinding).
        public var names: [String] = []
    }

    /// Signed A/B updates (RAUC), where the image has two system slots (`image-recipes/ota/`).
    public struct Update: Sendable, Hashable {
        /// How long the station must run (READY, feeding the watchdog) on a newly installed slot before
        /// it marks the slot good; until then a restart goes back to the old one. Five minutes: long
        /// enough for a crash at start, the first capture's pipeline and the page to show themselves.
        public var confirmSeconds = 300
        /// RAUC's command-line client, which talks to the RAUC service over D-Bus.
        public var rauc = "/usr/bin/rauc"
        /// The largest bundle the page takes.
        public var maxBundleMB = 1024
        /// The file whose creation asks the system to restart into an installed update (a root
        /// `snapstation-reboot.path` unit watches it: the station itself may not reboot).
        public var restartFile = "/run/snapstation/reboot"
        /// Where a USB stick is mounted: the page offers the bundles (`*.raucb`) found there.
        public var usbFolder = "/media"
    }

    public struct HouseholdSection: Sendable, Hashable {
        /// Minutes the person last picked with the mode button stays picked for the next meals; after
        /// that the owner (the first person) is picked again. 0: back to the owner after every meal.
        public var choiceMinutes = 10
    }

    public struct Jar: Sendable, Hashable {
        public enum Days: String, Sendable, Hashable, CaseIterable {
            case today, week
            public var count: Int { self == .today ? 1 : 7 }
        }
        /// Meal mode's ready screen is the jar of stickers (false: the live preview, as in group mode).
        public var enabled = true
        /// Which meals are in the jar.
        public var days = Days.today
        /// The stickers kept on disk, at most this many MB; the oldest go first.
        public var stickerCapMB = 200
        /// The IIO accelerometer's sysfs folder ("/sys/bus/iio/devices/iio:device0"); "" for none: gravity
        /// then points down the display.
        public var accelerometer = ""
        /// How the accelerometer is turned against the display.
        public var accelerometerRotation = Rotation.none
    }

    /// The most groups one station belongs to (the mode button cycles through them).
    public static let maxGroups = SettingsInForce.maxGroups
}

/// A quarter turn of the camera or the panel.
public enum Rotation: Int, Sendable, Hashable, CaseIterable {
    case none = 0
    case quarter = 90
    case half = 180
    case threeQuarters = 270
}

/// A GPIO line by offset on its chip or by name.
/// Where a secret comes from. Secrets are never written in the config itself.
public enum KeySource: Sendable, Hashable, CustomStringConvertible {
    /// An environment variable.
    case environment(String)
    /// A file holding only the key.
    case file(String)
    /// A systemd credential, read from `$CREDENTIALS_DIRECTORY/NAME`.
    case credential(String)

    /// Parses `env:NAME`, `file:/path` or `credential:NAME`.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        switch parts[0] {
        case "env": self = .environment(parts[1])
        case "file": self = .file(parts[1])
        case "credential": self = .credential(parts[1])
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .environment(let name): "env:\(name)"
        case .file(let path): "file:\(path)"
        case .credential(let name): "credential:\(name)"
        }
    }
}
