import Foundation
import SnapCore
import SnapFiles
import SnapText

extension StationConfig {
    /// The default place of the config file.
    public static let defaultPath = "/etc/snapstation/snapstation.toml"

    /// Parses and validates a config text; throws every problem found, each with its line and key.
    public init(parsing text: String, file: String) throws(ConfigError) {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(parsing: text)
        } catch {
            throw ConfigError(
                file: file,
                problems: [
                    ConfigProblem(line: error.line, key: "syntax", message: error.message, expected: "valid TOML 1.0")
                ])
        }
        var reader = ConfigReader(document)
        self.init(reading: &reader)
        reader.reportUnknownKeys()
        guard reader.problems.isEmpty else {
            throw ConfigError(file: file, problems: reader.problems.sorted { ($0.line, $0.key) < ($1.line, $1.key) })
        }
    }

    /// Every key the config understands, as dotted paths in file order.
    public static var knownKeys: [String] {
        var reader = ConfigReader(try! TOMLDocument(parsing: ""))
        _ = StationConfig(reading: &reader)
        return reader.knownKeys
    }

    /// The largest config file read: the reference, every key commented, is a few kilobytes.
    static let maxFileBytes = 1 << 20

    /// Reads a config file; a file that cannot be read is one problem on line 1 that says why.
    public init(contentsOf path: String) throws(ConfigError) {
        func unreadable(_ why: String, line: Int = 1) -> ConfigError {
            ConfigError(
                file: path,
                problems: [ConfigProblem(line: line, key: "file", message: why, expected: "a readable UTF-8 TOML file")]
            )
        }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: Self.maxFileBytes)
        } catch {
            switch error.errno {
            case ENOENT: throw unreadable("does not exist")
            case EACCES, EPERM: throw unreadable("cannot be read: permission denied (the station's user must read it)")
            case EISDIR: throw unreadable("is a folder, not a file")
            case EFBIG: throw unreadable("is larger than \(Self.maxFileBytes / 1024) KB")
            default: throw unreadable("cannot be read: \(String(cString: strerror(error.errno)))")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let line = 1 + bytes.prefix(Self.firstInvalidUTF8(bytes)).filter { $0 == UInt8(ascii: "\n") }.count
            throw unreadable("is not UTF-8 text", line: line)
        }
        try self.init(parsing: text, file: path)
    }

    /// The offset of the first byte that breaks UTF-8 (the file's length if none does).
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }

    private init(reading r: inout ConfigReader) {
        self.init()
        let d = StationConfig()

        station.name = r.string("station.name", default: d.station.name)
        station.defaultMode = r.choice("station.default_mode", default: d.station.defaultMode)
        station.timeZone = r.string("station.time_zone", default: d.station.timeZone)
        station.language = r.choice("station.language", default: d.station.language)
        let quiet = r.string("station.quiet_hours", default: d.station.quietHours.description)
        if let hours = QuietHours(quiet) {
            station.quietHours = hours
        } else {
            r.report(
                "station.quiet_hours", "\"\(quiet)\" is not a span of local hours",
                expected: "local hours such as \"22:00-07:00\", or \"\" for none")
        }
        if !station.timeZone.isEmpty && TimeZone(identifier: station.timeZone) == nil {
            r.report(
                "station.time_zone", "\"\(station.timeZone)\" is not a known time zone",
                expected: "an IANA zone such as \"Europe/Berlin\", or \"\" for the system's")
        }

        camera.backend = r.choice("camera.backend", default: d.camera.backend)
        camera.id = r.string("camera.id", default: d.camera.id)
        camera.previewWidth = r.int("camera.preview_width", default: d.camera.previewWidth, in: 160...3840)
        camera.previewHeight = r.int("camera.preview_height", default: d.camera.previewHeight, in: 120...2160)
        camera.previewFPS = r.int("camera.preview_fps", default: d.camera.previewFPS, in: 1...60)
        camera.stillWidth = r.int("camera.still_width", default: d.camera.stillWidth, in: 160...9152)
        camera.stillHeight = r.int("camera.still_height", default: d.camera.stillHeight, in: 120...6944)
        camera.stillSeconds = r.int("camera.still_seconds", default: d.camera.stillSeconds, in: 1...60)
        camera.rotation = r.rotation("camera.rotation", default: d.camera.rotation)
        camera.hflip = r.bool("camera.hflip", default: d.camera.hflip)
        camera.vflip = r.bool("camera.vflip", default: d.camera.vflip)
        camera.simulatedSource = r.string("camera.simulated_source", default: d.camera.simulatedSource)
        camera.others = r.strings("camera.others", default: []).compactMap { entry in
            let parts = entry.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let backend = parts.first.flatMap({ Camera.Backend(rawValue: String($0)) }), backend != .none else {
                r.report(
                    "camera.others", "\"\(entry)\" names no camera backend",
                    expected: "\"BACKEND:ID\" with BACKEND one of \"libcamera\", \"v4l2\", \"simulated\" "
                        + "(\"v4l2:/dev/video0\", \"libcamera:1\")")
                return nil
            }
            let id = parts.count > 1 ? String(parts[1]) : ""
            return Camera.Other(backend: backend, id: id.isEmpty ? d.camera.id : id)
        }
        // The same camera twice would be a switch that changes nothing.
        var named = [Camera.Other(backend: camera.backend, id: camera.id)]
        for other in camera.others {
            if named.contains(other) {
                r.report(
                    "camera.others",
                    "\(other.backend.rawValue):\(other.id) is named twice (camera.backend "
                        + "and camera.id name the first camera)",
                    expected: "each camera once")
            }
            named.append(other)
        }

        gpio.backend = r.choice("gpio.backend", default: d.gpio.backend)
        gpio.chip = r.string("gpio.chip", default: d.gpio.chip)
        gpio.shutterLine = r.gpioLine("gpio.shutter_line", default: d.gpio.shutterLine)
        gpio.modeLine = r.gpioLine("gpio.mode_line", default: d.gpio.modeLine)
        gpio.ledLine = r.gpioLine("gpio.led_line", default: d.gpio.ledLine)
        gpio.activeLow = r.bool("gpio.active_low", default: d.gpio.activeLow)
        gpio.bias = r.choice("gpio.bias", default: d.gpio.bias)
        gpio.debounceMS = r.int("gpio.debounce_ms", default: d.gpio.debounceMS, in: 0...1000)
        gpio.longPressMS = r.int("gpio.long_press_ms", default: d.gpio.longPressMS, in: 200...10000)
        gpio.script = r.string("gpio.script", default: d.gpio.script)
        if let problem = ButtonScript.problem(in: gpio.script) {
            r.report("gpio.script", problem, expected: "steps such as \"2s press, 10s hold, 1s mode\"")
        }

        display.backend = r.choice("display.backend", default: d.display.backend)
        display.device = r.string("display.device", default: d.display.device)
        display.connector = r.string("display.connector", default: d.display.connector)
        display.width = r.int("display.width", default: d.display.width, in: 240...3840)
        display.height = r.int("display.height", default: d.display.height, in: 240...3840)
        display.rotation = r.rotation("display.rotation", default: d.display.rotation)
        display.framesDir = r.string("display.frames_dir", default: d.display.framesDir)
        display.previewPNGFPS = r.double("display.preview_png_fps", default: d.display.previewPNGFPS, in: 0...30)
        display.idleSeconds = r.int("display.idle_seconds", default: d.display.idleSeconds, in: 0...86_400)
        display.slideSeconds = r.int("display.slide_seconds", default: d.display.slideSeconds, in: 2...600)
        display.nightHours = r.string("display.night_hours", default: d.display.nightHours)
        if !display.nightHours.isEmpty && NightHours(display.nightHours) == nil {
            r.report(
                "display.night_hours", "\"\(display.nightHours)\" is not a span of local hours",
                expected: "\"HH:MM-HH:MM\" such as \"23:00-07:00\", or \"\" for never")
        } else if !display.nightHours.isEmpty && display.idleSeconds == 0 {
            // The panel sleeps on the idle screen, which idle_seconds = 0 never shows.
            r.report(
                "display.night_hours", "needs the idle screen, and display.idle_seconds = 0 turns it off",
                expected: "display.idle_seconds above 0 (such as 300), or night_hours = \"\"")
        }

        countdown.seconds = r.int(
            "countdown.seconds", default: d.countdown.seconds, in: SettingsInForce.countdownRange)
        countdown.flash = r.bool("countdown.flash", default: d.countdown.flash)

        processing.maxSize = r.int("processing.max_size", default: d.processing.maxSize, in: 256...8192)
        processing.quality = r.int("processing.quality", default: d.processing.quality, in: 1...100)
        processing.thumbnailSize = r.int(
            "processing.thumbnail_size", default: d.processing.thumbnailSize, in: 64...1024)
        processing.filter = r.choice("processing.filter", default: d.processing.filter)
        processing.intensity = r.double(
            "processing.intensity", default: d.processing.intensity, in: SettingsInForce.intensityRange)
        processing.sticker = r.bool("processing.sticker", default: d.processing.sticker)
        processing.stickerOutline = r.int(
            "processing.sticker_outline", default: d.processing.stickerOutline, in: 0...64)
        processing.shareSticker = r.bool("processing.share_sticker", default: d.processing.shareSticker)
        processing.qualityGate = r.bool("processing.quality_gate", default: d.processing.qualityGate)
        processing.minBrightness = r.double("processing.min_brightness", default: d.processing.minBrightness, in: 0...1)
        processing.minSharpness = r.double(
            "processing.min_sharpness", default: d.processing.minSharpness, in: 0...10000)

        ai.baseURL = r.string("ai.base_url", default: d.ai.baseURL)
        switch Self.aiAddressProblem(ai.baseURL) {
        case .notHTTP?:
            r.report(
                "ai.base_url", "\"\(ai.baseURL)\" is not an http(s) URL",
                expected: "a URL such as \"https://api.openai.com/v1\"")
        case .clearOverInternet?:
            r.report(
                "ai.base_url", "plain http to a server outside this network would send the request in clear text",
                expected:
                    "an https URL, or http to a server on this station or the local network (192.168.…, 10.…, NAME.local)"
            )
        case nil: break
        }
        ai.model = r.string("ai.model", default: d.ai.model)
        ai.detail = r.choice("ai.detail", default: d.ai.detail)
        ai.keySource = r.keySource("ai.key_source", default: d.ai.keySource)
        ai.dailyLimit = r.int("ai.daily_limit", default: d.ai.dailyLimit, in: 0...1000)
        ai.dietary = r.strings("ai.dietary", default: [], allowed: DietaryPreference.allCases.map(\.rawValue))
            .compactMap(DietaryPreference.init(rawValue:))
        ai.timeoutSeconds = r.int("ai.timeout_seconds", default: d.ai.timeoutSeconds, in: 1...300)
        ai.waitSeconds = r.int("ai.wait_seconds", default: d.ai.waitSeconds, in: 5...300)
        ai.autoSaveSeconds = r.int("ai.auto_save_seconds", default: d.ai.autoSaveSeconds, in: 1...600)

        group.names = r.stringOrStrings("group.name", default: d.group.names, maxCount: Self.maxGroups)
        r.retired(
            "group.members", because: "each station is a member of its groups, with its own key",
            instead: "nothing here: add the station to its groups on the server (docs/supabase/schema.sql)")
        group.backend = r.choice("group.backend", default: d.group.backend)
        group.folder = r.string("group.folder", default: d.group.folder)
        group.url = r.string("group.url", default: d.group.url)
        group.bucket = r.string("group.bucket", default: d.group.bucket)
        group.email = r.string("group.email", default: d.group.email)
        group.keySource = r.keySource("group.key_source", default: d.group.keySource)
        group.anonKey = r.string("group.anon_key", default: d.group.anonKey)
        if group.backend == .supabase && group.anonKey.isEmpty {
            // Supabase's gateway refuses any other key as `apikey` (docker/volumes/api/kong.yml, key-auth):
            // every photo would be refused.
            r.report(
                r.isSet("group.anon_key") ? "group.anon_key" : "group.backend",
                "the supabase backend needs the project's public key",
                expected: "group.anon_key = the anon or publishable key from the project's API settings")
        }
        group.reviewSeconds = r.int("group.review_seconds", default: d.group.reviewSeconds, in: 1...30)
        group.inboxMinutes = r.int("group.inbox_minutes", default: d.group.inboxMinutes, in: 1...1440)
        for name in group.names where !Self.isGroupName(name) {
            r.report(
                "group.name", "\"\(name)\" cannot name a folder of the group's photos",
                expected: Self.groupNameCharacters)
        }
        if group.backend == .supabase && !Self.isSecureOrLocal(group.url) {
            r.report(
                r.isSet("group.url") ? "group.url" : "group.backend",
                "the supabase backend needs the project's https URL",
                expected: "group.url = \"https://PROJECT.supabase.co\", or http on 127.0.0.1 for a local Supabase")
        }

        storage.dir = r.string("storage.dir", default: d.storage.dir)
        if storage.dir.isEmpty {
            r.report("storage.dir", "is empty", expected: "a folder such as \"/var/lib/snapstation\"")
        }
        storage.retentionHours = r.int("storage.retention_hours", default: d.storage.retentionHours, in: 1...8760)
        storage.minFreeMB = r.int("storage.min_free_mb", default: d.storage.minFreeMB, in: 0...100_000)

        goals = Macros(
            calories: r.int("goals.kcal", default: d.goals.calories, in: SettingsInForce.kcalGoalRange),
            protein: r.int("goals.protein", default: d.goals.protein, in: SettingsInForce.gramsGoalRange),
            carbs: r.int("goals.carbs", default: d.goals.carbs, in: SettingsInForce.gramsGoalRange),
            fats: r.int("goals.fats", default: d.goals.fats, in: SettingsInForce.gramsGoalRange))
        household.choiceMinutes = r.int(
            "household.choice_minutes", default: d.household.choiceMinutes, in: 0...1_440)
        notify.format = r.choice("notify.format", default: d.notify.format)
        notify.address = r.string("notify.url", default: d.notify.address)
        if let problem = NoticeSettings.problem(address: notify.address, format: notify.format) {
            switch problem {
            case .notHTTP:
                r.report(
                    "notify.url", "\"\(notify.address)\" is not an http(s) URL",
                    expected: "\"https://ntfy.sh/TOPIC\", a webhook's URL, or \"\"")
            case .noTopic:
                r.report(
                    "notify.url", "\"\(notify.address)\" names no ntfy topic",
                    expected: "\"https://ntfy.sh/TOPIC\": a topic of letters, digits, - and _")
            }
            notify.address = ""
        }
        notify.off = Set(
            r.strings("notify.off", default: [], allowed: NoticeKind.allCases.map(\.rawValue))
                .compactMap(NoticeKind.init(rawValue:)))
        let reminder = r.string("notify.reminder", default: "")
        if reminder.isEmpty {
            notify.reminder = nil
        } else if let minute = NoticeSettings.minute(reminder) {
            notify.reminder = minute
        } else {
            r.report(
                "notify.reminder", "\"\(reminder)\" is not a time of day",
                expected: "a local time such as \"18:00\", or \"\"")
        }
        mqtt.broker.address = r.string("mqtt.url", default: d.mqtt.broker.address)
        if let expected = MQTTSettings.problem(address: mqtt.broker.address) {
            r.report("mqtt.url", "\"\(mqtt.broker.address)\" is not a broker's address", expected: expected)
            mqtt.broker.address = ""
        }
        mqtt.broker.username = r.string("mqtt.username", default: d.mqtt.broker.username)
        mqtt.keySource = r.keySource("mqtt.key_source", default: d.mqtt.keySource)
        mqtt.broker.version = r.choice("mqtt.version", default: d.mqtt.broker.version)
        mqtt.caFile = r.string("mqtt.ca_file", default: d.mqtt.caFile)
        mqtt.discoveryPrefix = r.string("mqtt.discovery_prefix", default: d.mqtt.discoveryPrefix)
        if !HomeTopics.isLevel(mqtt.discoveryPrefix) {
            r.report(
                "mqtt.discovery_prefix", "\"\(mqtt.discoveryPrefix)\" is not one topic level",
                expected: "letters, digits, - and _, such as \"homeassistant\"")
            mqtt.discoveryPrefix = d.mqtt.discoveryPrefix
        }
        mqtt.broker.countdownButton = r.bool("mqtt.countdown_button", default: d.mqtt.broker.countdownButton)
        jar.enabled = r.bool("jar.enabled", default: d.jar.enabled)
        jar.days = r.choice("jar.days", default: d.jar.days)
        jar.stickerCapMB = r.int("jar.sticker_cap_mb", default: d.jar.stickerCapMB, in: 1...100_000)
        jar.accelerometer = r.string("jar.accelerometer", default: d.jar.accelerometer)
        jar.accelerometerRotation = r.rotation("jar.accelerometer_rotation", default: d.jar.accelerometerRotation)

        update.confirmSeconds = r.int("update.confirm_seconds", default: d.update.confirmSeconds, in: 5...86_400)
        update.rauc = r.string("update.rauc", default: d.update.rauc)
        update.maxBundleMB = r.int("update.max_bundle_mb", default: d.update.maxBundleMB, in: 1...65_536)
        update.restartFile = r.string("update.restart_file", default: d.update.restartFile)
        update.usbFolder = r.string("update.usb_folder", default: d.update.usbFolder)
        for (key, path) in [("update.rauc", update.rauc), ("update.restart_file", update.restartFile)]
        where !path.hasPrefix("/") {
            r.report(key, "\"\(path)\" is not an absolute path", expected: "a path such as \"/usr/bin/rauc\"")
        }
        web.enabled = r.bool("web.enabled", default: d.web.enabled)
        web.address = r.string("web.address", default: d.web.address)
        if !Self.isIPAddress(web.address) {
            r.report(
                "web.address", "\"\(web.address)\" is not an IP address of this station",
                expected: "\"0.0.0.0\" for every interface, \"127.0.0.1\" for this machine only, or one address")
        }
        web.port = r.int("web.port", default: d.web.port, in: 0...65535)
        web.tlsCertificate = r.string("web.tls_certificate", default: d.web.tlsCertificate)
        web.tlsKey = r.string("web.tls_key", default: d.web.tlsKey)
        if web.tlsCertificate.isEmpty != web.tlsKey.isEmpty {
            r.report(
                web.tlsCertificate.isEmpty ? "web.tls_key" : "web.tls_certificate", "is missing its partner",
                expected: "both web.tls_certificate and web.tls_key (PEM files), or neither")
        }
        let files = !web.tlsCertificate.isEmpty && !web.tlsKey.isEmpty
        web.tls = r.choice("web.tls", default: files ? .files : d.web.tls)
        if web.tls == .files && !files {
            r.report("web.tls", "\"files\" needs web.tls_certificate and web.tls_key", expected: "both PEM files set")
        } else if web.tls != .files && files {
            r.report(
                "web.tls", "\"\(web.tls.rawValue)\" does not use web.tls_certificate and web.tls_key",
                expected: "\"files\" to serve them, or neither file")
        }
        web.publicURL = r.string("web.public_url", default: d.web.publicURL)
        if !web.publicURL.isEmpty && URL(string: web.publicURL)?.scheme.map({ ["http", "https"].contains($0) }) != true
        {
            r.report(
                "web.public_url", "\"\(web.publicURL)\" is not an http(s) URL",
                expected: "a URL such as \"http://snapstation.local:8080\", or \"\" to make one")
        }
        web.locked = r.strings("web.locked", default: d.web.locked, allowed: RuntimeSettings.keys)
        web.sessionDays = r.int("web.session_days", default: d.web.sessionDays, in: 1...3650)
        web.names = r.strings("web.names", default: d.web.names)
        for name in web.names where !Self.isHostName(name) {
            r.report(
                "web.names", "\"\(name)\" is not a host name",
                expected: "names such as \"kitchen.example.org\": letters, digits, '-' and '.', no port")
        }
    }
}

extension StationConfig {
    /// A name a group can have: its photos' folder on every backend (Supabase Storage accepts only these
    /// characters in a name; docs/supabase/schema.sql checks the same).
    public static func isGroupName(_ name: String) -> Bool {
        (1...100).contains(name.count) && name.allSatisfy(isPathSafe)
    }

    /// What a group's name may hold, for a message.
    public static let groupNameCharacters = "up to 100 letters, digits, spaces and _ ! - . * ' ( ) & $ @ = ; : + , ?"

    /// What Supabase Storage accepts in an object's path, and a folder name on any file system: a group
    /// name is the first folder of every photo it is sent.
    static func isPathSafe(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || " _!-.*'()&$@=;:+,?".contains(character))
    }

    /// A DNS name: labels of letters, digits and '-', joined by dots, at most 253 characters.
    static func isHostName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return !text.isEmpty && text.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
    }
}

extension ConfigReader {
    mutating func rotation(_ path: String, default value: Rotation) -> Rotation {
        let degrees = int(path, default: value.rawValue, in: 0...270)
        guard let rotation = Rotation(rawValue: degrees) else {
            report(path, "\(degrees) is not a quarter turn", expected: "0, 90, 180 or 270")
            return value
        }
        return rotation
    }

    mutating func keySource(_ path: String, default value: KeySource) -> KeySource {
        let text = string(path, default: value.description)
        guard let source = KeySource(text) else {
            report(
                path, "\"\(text)\" does not say where the key is",
                expected: "\"env:NAME\", \"file:/path\" or \"credential:NAME\"")
            return value
        }
        return source
    }
}
