import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapTestSupport
import Testing

@Suite("StationConfig")
struct StationConfigTests {
    static let examplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/snapstation.example.toml").path

    @Test("should read every board's example config without a problem")
    func boardConfigs() throws {
        let board = URL(fileURLWithPath: Self.examplePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("board").path
        let folders = try FileManager.default.contentsOfDirectory(atPath: board).sorted()
        let configs = folders.map { "\(board)/\($0)/snapstation.toml" }.filter {
            FileManager.default.fileExists(atPath: $0)
        }
        #expect(configs.count == 5, "pi4, pi5, zero2w, cm4, x86-vm")
        for path in configs {
            let config = try StationConfig(contentsOf: path)
            #expect(config.gpio.backend == .gpiod && config.camera.backend == .libcamera, "\(path)")
            #expect(config.gpio.shutterLine == .name("GPIO17"), "\(path)")
        }
    }

    private func problems(_ text: String) -> [String] {
        do {
            _ = try StationConfig(parsing: text, file: "t.toml")
            return []
        } catch {
            return error.lines
        }
    }

    @Test("should read the reference example as exactly the defaults")
    func exampleIsDefaults() throws {
        let config = try StationConfig(contentsOf: Self.examplePath)
        #expect(config == StationConfig())
    }

    @Test("should document every key the station reads in the reference example")
    func exampleListsEveryKey() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        var table = ""
        var documented: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            if line.hasPrefix("[") {
                table = String(line.dropFirst().dropLast())
            } else if let key = line.split(separator: "=").first {
                documented.append(table + "." + key.trimmingCharacters(in: .whitespaces))
            }
        }
        #expect(documented == StationConfig.knownKeys)
    }

    @Test("should accept an empty file as all defaults")
    func emptyFile() throws {
        #expect(try StationConfig(parsing: "", file: "t.toml") == StationConfig())
    }

    @Test("should read the values it is given")
    func values() throws {
        let config = try StationConfig(
            parsing: """
                [station]
                time_zone = "Europe/Berlin"
                default_mode = "meal"
                [gpio]
                shutter_line = 5
                led_line = ""
                [processing]
                intensity = 1
                [ai]
                dietary = ["vegan", "gluten-free"]
                key_source = "credential:openai"
                [group]
                name = ["Family", "Climbers"]
                anon_key = "public"
                """, file: "t.toml")
        #expect(config.station.defaultMode == .meal)
        #expect(config.resolvedTimeZone.identifier == "Europe/Berlin")
        #expect(config.gpio.shutterLine == .offset(5))
        #expect(config.gpio.ledLine == nil)
        #expect(config.processing.intensity == 1.0)
        #expect(config.ai.dietary == [.vegan, .glutenFree])
        #expect(config.ai.keySource == .credential("openai"))
        #expect(config.group.names == ["Family", "Climbers"])
        #expect(config.group.anonKey == "public")
        #expect(config.stationSettings(aiConfigured: true).groups == ["Family", "Climbers"])
        #expect(!config.settingsRule.inForce(RuntimeSettings(flash: true)).flash, "no LED line, no flash")
    }

    @Test("should read the station's language, and name the languages it has when it has not that one")
    func language() throws {
        #expect(try StationConfig(parsing: "", file: "t.toml").station.language == .en)
        #expect(try StationConfig(parsing: "[station]\nlanguage = \"es\"", file: "t.toml").station.language == .es)
        #expect(throws: ConfigError.self) {
            try StationConfig(parsing: "[station]\nlanguage = \"german\"", file: "t.toml")
        }
        do {
            _ = try StationConfig(parsing: "[station]\nlanguage = \"german\"", file: "t.toml")
        } catch {
            #expect(
                "\(error)".contains(
                    "t.toml:2: station.language: \"german\" is not allowed (one of \"en\", \"de\", \"es\", \"fr\", \"it\")"
                ),
                "\(error)")
        }
    }

    @Test("should read one group name or a list, and say what replaced the members list")
    func groups() throws {
        #expect(try StationConfig(parsing: "[group]\nname = \"Family\"\n", file: "t.toml").group.names == ["Family"])
        #expect(try StationConfig(parsing: "[group]\nname = \"\"\n", file: "t.toml").group.names == [])
        #expect(
            problems("[group]\nname = [\"A\", \"A\"]\n") == [
                "t.toml:2: group.name: an entry appears twice (a string, or a list of at most 8 different strings)"
            ])
        #expect(problems("[group]\nname = \"A/B\"\n").first?.contains("cannot name a folder") == true)
        #expect(
            problems("[group]\nmembers = [\"Ana\"]\n") == [
                "t.toml:2: group.members: is no longer read: each station is a member of its groups, with its own key (nothing here: add the station to its groups on the server (docs/supabase/schema.sql))"
            ])
    }

    @Test("should take \"..\" as a group's name, as the server does, and keep its photos inside the inbox")
    func dotDotGroup() throws {
        let state = TemporaryDirectory("config-groups")
        let config = try StationConfig(
            parsing: "[group]\nname = [\"..\", \".\", \"...\"]\n[storage]\ndir = \"\(state.path)\"\n", file: "t.toml")
        #expect(config.group.names == ["..", ".", "..."])
        // The station's inbox: FOLDER/ID.jpg under the state folder's inbox/ (StationStore.inboxFolder(of:)).
        let inbox = ConfinedFolder(config.storage.dir + "/inbox")
        for group in config.group.names {
            try inbox.write([1], to: #require(FileName("a.jpg")), in: [FileName.folder(for: group)])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path) == ["inbox"])
        let folders = try FileManager.default.contentsOfDirectory(atPath: state.path + "/inbox")
        #expect(folders.count == 3 && folders.allSatisfy { !$0.hasPrefix(".") }, "\(folders)")
    }

    @Test("should refuse plain http for the AI service beyond the local network, and take a LAN vision server")
    func plainHTTP() {
        for outside in ["http://ai.example.com/v1", "http://203.0.113.5/v1", "http://172.32.0.1/v1"] {
            #expect(
                problems("[ai]\nbase_url = \"\(outside)\"\n") == [
                    "t.toml:2: ai.base_url: plain http to a server outside this network would send the request in clear text (an https URL, or http to a server on this station or the local network (192.168.…, 10.…, NAME.local))"
                ], "\(outside)")
        }
        for inside in [
            "http://127.0.0.1:8080/v1", "https://ai.example.com/v1", "http://192.168.1.20:11434/v1",
            "http://10.0.0.7:8000/v1", "http://172.16.4.2/v1", "http://gpu-box.local:8080/v1", "http://ollama:11434/v1",
            "http://[fd00::5]:8080/v1",
        ] {
            #expect(problems("[ai]\nbase_url = \"\(inside)\"\n").isEmpty, "\(inside)")
        }
    }

    @Test("should need the project's public key for the supabase backend, with its line")
    func anonKeyRequired() {
        #expect(
            problems("[group]\nbackend = \"supabase\"\nurl = \"https://abcd.supabase.co\"\n") == [
                "t.toml:2: group.backend: the supabase backend needs the project's public key (group.anon_key = the anon or publishable key from the project's API settings)"
            ])
        #expect(
            problems(
                "[group]\nbackend = \"supabase\"\nurl = \"https://abcd.supabase.co\"\nanon_key = \"sb_publishable_x\"\nemail = \"kitchen@example.com\"\n"
            ).isEmpty)
    }

    @Test("should report a syntax error with its line")
    func syntaxError() {
        let lines = problems("[station]\nname = \"a\"\nmode meal\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("t.toml:3: syntax: ") == true)
        #expect(lines.first?.hasSuffix("(valid TOML 1.0)") == true)
    }

    @Test("should name an unknown key and suggest the one meant")
    func unknownKey() {
        #expect(
            problems("[processing]\nqualty = 80\n") == [
                "t.toml:2: processing.qualty: unknown key; did you mean \"processing.quality\"? (a key listed in docs/snapstation.example.toml)"
            ])
    }

    @Test("should name an unknown table once, not each of its keys")
    func unknownTable() {
        #expect(
            problems("[camra]\nbackend = \"none\"\nid = \"x\"\n") == [
                "t.toml:1: camra: unknown table; did you mean [camera]? (one of the tables listed in docs/snapstation.example.toml)"
            ])
    }

    @Test("should report a wrong type with what is expected")
    func wrongType() {
        #expect(
            problems("[countdown]\nseconds = \"three\"\n") == [
                "t.toml:2: countdown.seconds: wrong type: found a string (an integer from 0 to 10)"
            ])
    }

    @Test("should refuse a JPEG quality outside 1…100")
    func qualityRange() {
        #expect(
            problems("[processing]\nquality = 0\n") == [
                "t.toml:2: processing.quality: 0 is out of range (an integer from 1 to 100)"
            ])
        #expect(problems("[processing]\nquality = 101\n").count == 1)
        #expect(problems("[processing]\nquality = 100\n").isEmpty)
    }

    @Test("should read how long a still may take, 1 to 60 seconds, 5 unless told")
    func stillSeconds() throws {
        #expect(try StationConfig(parsing: "", file: "t.toml").camera.stillSeconds == 5)
        #expect(try StationConfig(parsing: "[camera]\nstill_seconds = 30\n", file: "t.toml").camera.stillSeconds == 30)
        #expect(
            problems("[camera]\nstill_seconds = 0\n") == [
                "t.toml:2: camera.still_seconds: 0 is out of range (an integer from 1 to 60)"
            ])
        #expect(problems("[camera]\nstill_seconds = 61\n").count == 1)
    }

    @Test("should read more cameras as BACKEND:ID, and name an entry that names no backend")
    func otherCameras() throws {
        let config = try StationConfig(
            parsing: "[camera]\nbackend = \"libcamera\"\nothers = [\"v4l2:/dev/video0\", \"simulated:\"]\n",
            file: "t.toml")
        #expect(
            config.camera.all == [
                .init(backend: .libcamera, id: "first"), .init(backend: .v4l2, id: "/dev/video0"),
                .init(backend: .simulated, id: "first"),
            ])
        #expect(config.camera.all.map(\.name) == ["libcamera", "USB video0", "Simulated"])
        #expect(config.settingsRule.cameras.count == 3)
        #expect(
            problems("[camera]\nothers = [\"webcam\"]\n") == [
                "t.toml:2: camera.others: \"webcam\" names no camera backend (\"BACKEND:ID\" with BACKEND one of "
                    + "\"libcamera\", \"v4l2\", \"simulated\" (\"v4l2:/dev/video0\", \"libcamera:1\"))"
            ])
        let twice =
            "camera.others: v4l2:/dev/video0 is named twice (camera.backend and camera.id name the first camera)"
        #expect(
            problems("[camera]\nothers = [\"v4l2:/dev/video0\", \"v4l2:/dev/video0\"]\n") == [
                "t.toml:2: \(twice) (each camera once)"
            ])
        #expect(
            problems("[camera]\nbackend = \"v4l2\"\nid = \"/dev/video0\"\nothers = [\"v4l2:/dev/video0\"]\n") == [
                "t.toml:4: \(twice) (each camera once)"
            ])
    }

    @Test("should read the night hours, and name a span it cannot read")
    func nightHours() throws {
        let config = try StationConfig(parsing: "[display]\nnight_hours = \"23:00-06:30\"\n", file: "t.toml")
        #expect(config.stationSettings(aiConfigured: false).nightHours == NightHours(from: 23 * 60, until: 6 * 60 + 30))
        #expect(
            problems("[display]\nnight_hours = \"11pm\"\n") == [
                "t.toml:2: display.night_hours: \"11pm\" is not a span of local hours (\"HH:MM-HH:MM\" such as "
                    + "\"23:00-07:00\", or \"\" for never)"
            ])
        // The panel sleeps on the idle screen: night hours without one would never come.
        #expect(
            problems("[display]\nidle_seconds = 0\nnight_hours = \"23:00-06:30\"\n") == [
                "t.toml:3: display.night_hours: needs the idle screen, and display.idle_seconds = 0 turns it off "
                    + "(display.idle_seconds above 0 (such as 300), or night_hours = \"\")"
            ])
    }

    @Test("should read the notices' table, and name an address, a kind or a time it cannot use")
    func notices() throws {
        let config = try StationConfig(
            parsing: "[notify]\nformat = \"webhook\"\nurl = \"http://hub.local:8123/api/webhook/x\"\noff = [\"ai\"]\n",
            file: "t.toml")
        #expect(
            config.notify
                == NoticeSettings(address: "http://hub.local:8123/api/webhook/x", format: .webhook, off: [.ai]))
        #expect(
            problems("[notify]\nurl = \"https://ntfy.sh\"\noff = [\"updates\"]\nreminder = \"6pm\"\n") == [
                "t.toml:2: notify.url: \"https://ntfy.sh\" names no ntfy topic (\"https://ntfy.sh/TOPIC\": a topic of "
                    + "letters, digits, - and _)",
                "t.toml:3: notify.off: \"updates\" is not allowed; did you mean \"update\"? (a list of \"shared\", "
                    + "\"photo_due\", \"ai\", \"update\", \"storage\")",
                "t.toml:4: notify.reminder: \"6pm\" is not a time of day (a local time such as \"18:00\", or \"\")",
            ])
        #expect(
            problems("[notify]\nformat = \"webhook\"\nurl = \"hub.local/x\"\n") == [
                "t.toml:3: notify.url: \"hub.local/x\" is not an http(s) URL (\"https://ntfy.sh/TOPIC\", a webhook's URL, "
                    + "or \"\")"
            ])
    }

    @Test("should read the broker's table, off by default, and name an address or a prefix it cannot use")
    func mqtt() throws {
        #expect(try StationConfig(parsing: "", file: "t.toml").mqtt.broker.broker == nil)
        let config = try StationConfig(
            parsing: "[mqtt]\nurl = \"mqtt://[fd00::7]\"\nusername = \"kitchen\"\nkey_source = \"file:/run/mqtt\"\n"
                + "countdown_button = true\n",
            file: "t.toml")
        #expect(config.mqtt.broker.broker == MQTTSettings.Broker(host: "fd00::7", port: 1883, tls: false))
        #expect(config.mqtt.broker.countdownButton && config.mqtt.broker.version == .v5)
        #expect(config.mqtt.keySource == .file("/run/mqtt"))
        #expect(MQTTSettings.broker("mqtts://hub.local")?.port == 8883)
        #expect(MQTTSettings.broker("mqtt://hub.local:1884/")?.port == 1884)
        #expect(
            problems("[mqtt]\nurl = \"http://hub.local\"\nversion = \"4\"\ndiscovery_prefix = \"home/assistant\"\n")
                == [
                    "t.toml:2: mqtt.url: \"http://hub.local\" is not a broker's address (an address like "
                        + "mqtt://homeassistant.local or mqtts://broker.example:8883)",
                    "t.toml:3: mqtt.version: \"4\" is not allowed; did you mean \"5\"? (one of \"5\", \"3.1.1\")",
                    "t.toml:4: mqtt.discovery_prefix: \"home/assistant\" is not one topic level (letters, digits, - and _, "
                        + "such as \"homeassistant\")",
                ])
    }

    @Test("should refuse more than 8 groups")
    func groupCount() {
        let nine = (1...9).map { "\"g\($0)\"" }.joined(separator: ", ")
        #expect(
            problems("[group]\nname = [\(nine)]\n") == [
                "t.toml:2: group.name: 9 entries are too many (a list of strings, at most 8)"
            ])
    }

    @Test("should read the owner's page's table and say what is wrong with it")
    func webTable() throws {
        let config = try StationConfig(
            parsing: """
                [web]
                address = "127.0.0.1"
                port = 0
                locked = ["processing.filter", "countdown.seconds"]
                public_url = "http://snapstation.local:8080"
                """, file: "t.toml")
        #expect(config.web.address == "127.0.0.1" && config.web.port == 0 && config.web.enabled)
        #expect(config.web.locked == ["processing.filter", "countdown.seconds"])
        #expect(config.stationSettings(aiConfigured: false).ownersPage)
        let lines = problems(
            """
            [web]
            address = "my-station"
            port = 70000
            tls_certificate = "/etc/snapstation/cert.pem"
            public_url = "snapstation.local"
            locked = ["processing.filtr"]
            """)
        #expect(
            lines == [
                "t.toml:2: web.address: \"my-station\" is not an IP address of this station (\"0.0.0.0\" for every interface, \"127.0.0.1\" for this machine only, or one address)",
                "t.toml:3: web.port: 70000 is out of range (an integer from 0 to 65535)",
                "t.toml:4: web.tls_certificate: is missing its partner (both web.tls_certificate and web.tls_key (PEM files), or neither)",
                "t.toml:5: web.public_url: \"snapstation.local\" is not an http(s) URL (a URL such as \"http://snapstation.local:8080\", or \"\" to make one)",
                "t.toml:6: web.locked: \"processing.filtr\" is not allowed; did you mean \"processing.filter\"? (a list of \"ai.dietary\", \"processing.filter\", \"processing.intensity\", \"countdown.flash\", \"countdown.seconds\", \"station.default_mode\", \"camera.backend\", \"group.name\", \"station.language\", \"goals\", \"station.quiet_hours\", \"station.time_zone\", \"ai.base_url\", \"group.email\", \"notify\", \"mqtt\")",
            ])
    }

    @Test(
        "should read how the page is served: off by default, files when both are set, self-signed, and what does not fit"
    )
    func webTLS() throws {
        #expect(try StationConfig(parsing: "", file: "t.toml").web.tls == .off)
        let files = try StationConfig(
            parsing: "[web]\ntls_certificate = \"/c.pem\"\ntls_key = \"/k.pem\"", file: "t.toml")
        #expect(files.web.tls == .files && files.web.servesHTTPS)
        let own = try StationConfig(parsing: "[web]\ntls = \"self-signed\"\nsession_days = 30", file: "t.toml")
        #expect(own.web.tls == .selfSigned && own.web.sessionDays == 30)
        #expect(
            problems("[web]\ntls = \"files\"") == [
                "t.toml:2: web.tls: \"files\" needs web.tls_certificate and web.tls_key (both PEM files set)"
            ])
        #expect(
            problems("[web]\ntls = \"self-signed\"\ntls_certificate = \"/c.pem\"\ntls_key = \"/k.pem\"") == [
                "t.toml:2: web.tls: \"self-signed\" does not use web.tls_certificate and web.tls_key (\"files\" to serve them, or neither file)"
            ])
        #expect(
            problems("[web]\ntls = \"self-signd\"\nnames = [\"kitchen.example.org:8080\"]") == [
                "t.toml:2: web.tls: \"self-signd\" is not allowed; did you mean \"self-signed\"? (one of \"off\", \"self-signed\", \"files\")",
                "t.toml:3: web.names: \"kitchen.example.org:8080\" is not a host name (names such as \"kitchen.example.org\": letters, digits, '-' and '.', no port)",
            ])
    }

    @Test("should report every problem in one pass, in line order")
    func manyProblems() {
        let lines = problems(
            """
            [station]
            time_zone = "Mars/Olympus"
            default_mode = "meals"
            [camera]
            rotation = 45
            [ai]
            dietary = ["vegam"]
            key_source = "sk-abc123"
            [group]
            backend = "supabase"
            """)
        #expect(
            lines == [
                "t.toml:2: station.time_zone: \"Mars/Olympus\" is not a known time zone (an IANA zone such as \"Europe/Berlin\", or \"\" for the system's)",
                "t.toml:3: station.default_mode: \"meals\" is not allowed; did you mean \"meal\"? (one of \"meal\", \"group\")",
                "t.toml:5: camera.rotation: 45 is not a quarter turn (0, 90, 180 or 270)",
                "t.toml:7: ai.dietary: \"vegam\" is not allowed; did you mean \"vegan\"? (a list of \"gluten-free\", \"lactose-free\", \"vegan\", \"vegetarian\")",
                "t.toml:8: ai.key_source: \"sk-abc123\" does not say where the key is (\"env:NAME\", \"file:/path\" or \"credential:NAME\")",
                "t.toml:10: group.backend: the supabase backend needs the project's public key (group.anon_key = the anon or publishable key from the project's API settings)",
                "t.toml:10: group.backend: the supabase backend needs the project's https URL (group.url = \"https://PROJECT.supabase.co\", or http on 127.0.0.1 for a local Supabase)",
            ])
    }

    @Test("should take https for Supabase, and plain http only to this machine")
    func supabaseURL() {
        let base = "[group]\nbackend = \"supabase\"\nanon_key = \"k\"\nurl = "
        #expect(problems(base + "\"https://abc.supabase.co\"\n").isEmpty)
        #expect(problems(base + "\"http://127.0.0.1:54321\"\n").isEmpty)
        #expect(problems(base + "\"http://abc.supabase.co\"\n").count == 1)
    }

    @Test("should check the simulated buttons' script")
    func badScript() {
        #expect(
            problems("[gpio]\nscript = \"2s press, soon hold\"\n") == [
                "t.toml:2: gpio.script: \"soon\" is not a delay in seconds such as \"2s\" (steps such as \"2s press, 10s hold, 1s mode\")"
            ])
    }

    @Test("should say why a file cannot be read: missing, a folder, not UTF-8, too large, not permitted")
    func unreadableFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func why(_ path: String) -> String {
            do {
                _ = try StationConfig(contentsOf: path)
                return "read"
            } catch {
                return error.problems.map { "\($0.line): \($0.message)" }.joined(separator: "; ")
            }
        }
        #expect(why(folder + "/missing.toml") == "1: does not exist")
        #expect(why(folder) == "1: is a folder, not a file")
        try Data("[station]\nname = \"Caf".utf8 + [0xE9] + Data("\"\n".utf8)).write(
            to: URL(fileURLWithPath: folder + "/latin1.toml"))
        #expect(why(folder + "/latin1.toml") == "2: is not UTF-8 text")
        try Data(count: 2 << 20).write(to: URL(fileURLWithPath: folder + "/big.toml"))
        #expect(why(folder + "/big.toml") == "1: is larger than 1024 KB")
        if getuid() != 0 {
            try "[station]\n".write(toFile: folder + "/secret.toml", atomically: true, encoding: .utf8)
            chmod(folder + "/secret.toml", 0)
            #expect(why(folder + "/secret.toml").contains("permission denied"))
        }
    }

    @Test("should refuse a dotted key of 15,000 parts on its line, without overflowing the stack")
    func deepKey() {
        let deep = (0..<15_000).map { "k\($0)" }.joined(separator: ".") + " = 1\n"
        let lines = problems("[station]\nname = \"x\"\n" + deep)
        #expect(lines == ["t.toml:3: syntax: a key of more than 32 dotted parts (valid TOML 1.0)"])
        #expect(problems("a.b.c.\"d.e.f\" = \"1.2.3\"\n").allSatisfy { !$0.contains("dotted parts") })
    }

    @Test("should print each syntax error on one line")
    func oneLineErrors() {
        for text in ["[station\nname = 1\n", "x = [1, \"a\"\n", "a = \"\"\"\nb\n"] {
            let lines = problems(text)
            #expect(lines.count == 1 && !lines[0].contains("\n"), "\(lines)")
        }
    }
}

@Suite("KeySource")
struct KeySourceTests {
    @Test("should read a key from the environment, a file, or a systemd credential, trimmed")
    func resolves() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "sk-from-file\n".write(toFile: folder + "/key", atomically: true, encoding: .utf8)
        try "sk-from-credential\n".write(toFile: folder + "/openai", atomically: true, encoding: .utf8)
        #expect(KeySource.environment("K").resolve(environment: ["K": " sk-env "]) == "sk-env")
        #expect(KeySource.file(folder + "/key").resolve(environment: [:]) == "sk-from-file")
        #expect(
            KeySource.credential("openai").resolve(environment: ["CREDENTIALS_DIRECTORY": folder])
                == "sk-from-credential")
    }

    @Test("should find no key where there is none, or only whitespace")
    func missing() {
        #expect(KeySource.environment("K").resolve(environment: [:]) == nil)
        #expect(KeySource.environment("K").resolve(environment: ["K": "  \n"]) == nil)
        #expect(KeySource.file("/nonexistent/key").resolve(environment: [:]) == nil)
        #expect(
            KeySource.credential("openai").resolve(environment: [:]) == nil,
            "outside systemd there is no credentials folder")
    }
}
