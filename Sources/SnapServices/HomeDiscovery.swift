import Foundation
import SnapCore
import SnapText

/// The station as Home Assistant's MQTT discovery describes a device: one config per entity, retained at
/// `<prefix>/<component>/<node>/<object>/config`, and the states the configs point to under
/// `snapstation/<node>/`. Every key is written in full (Home Assistant takes the full names beside the
/// abbreviations: homeassistant/components/mqtt/discovery.py, `_replace_abbreviations`), and each
/// component's required key is there (`state_topic` for sensor, binary_sensor and update; `command_topic`
/// for button; `image_topic` for image: mqtt/config.py, `MQTT_RO_SCHEMA`, mqtt/button.py, mqtt/image.py).
///
/// The day's kcal are an `energy` sensor in kcal and the macros `weight` sensors in g, each with the
/// state class `total` and its `last_reset` the start of the station's day (`last_reset_value_template`;
/// homeassistant/components/sensor/const.py allows kcal and g for those classes, and `total` for both): a
/// meal deleted lowers the day's total without being read as a new meter, and the long-term statistics
/// sum each day's food. Names are in the station's language.
public struct HomeDiscovery: Sendable {
    public let prefix: String
    /// The station's id in topics and unique ids: `[a-z0-9_]` (mqtt/discovery.py's `TOPIC_MATCHER`).
    public let node: String
    public let stationName: String
    public let version: String
    public let page: String?

    public init(prefix: String = "homeassistant", stationName: String, version: String, page: String?) {
        self.prefix = prefix
        self.node = "snapstation_" + Self.slug(stationName)
        self.stationName = stationName
        self.version = version
        self.page = page
    }

    /// `text` as an id: lowercase ASCII letters and digits, runs of anything else one "_".
    public static func slug(_ text: String) -> String {
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.hasSuffix("_") {
                slug += "_"
            }
        }
        let trimmed = slug.trimmingCharacters(in: CharacterSet(charactersIn: "_"))
        return trimmed.isEmpty ? "station" : trimmed
    }

    public var base: String { "snapstation/\(node)" }
    /// "online" while the station is connected; "offline" from its will or its stop.
    public var availability: String { base + "/availability" }
    /// Where the countdown button's press comes.
    public var pressTopic: String { base + "/countdown/press" }
    public static let press = "PRESS"
    /// Home Assistant's birth message (mqtt/const.py, `DEFAULT_BIRTH`): configs are sent again when it
    /// says "online".
    public var birthTopic: String { prefix + "/status" }
    /// The station's own configs, whatever their component, for finding the ones no longer made.
    public var ownConfigs: String { "\(prefix)/+/\(node)/+/config" }

    /// What the entities show.
    public struct Snapshot: Sendable, Equatable {
        public struct Person: Sendable, Equatable {
            public var id: String
            public var name: String
            public var today: Macros
            public var goals: Macros

            public init(id: String, name: String, today: Macros, goals: Macros) {
                self.id = id
                self.name = name
                self.today = today
                self.goals = goals
            }
        }

        public var people: [Person]
        /// The start of the station's day, the totals' `last_reset`.
        public var dayStarted: Date
        /// The AI's analyses left today; nil without an AI service.
        public var aiLeft: Int?
        public var lastMeal: String?
        public var groupPhotos: Int
        public var lastShared: String?
        /// Each problem's kind ("camera", "display", "storage", "ai", "group") and its words.
        public var problems: [String: String]
        public var waitingVersion: String?
        /// The last group photo, display-sized, as JPEG.
        public var photo: [UInt8]?
        public var countdownButton: Bool

        public init(
            people: [Person], dayStarted: Date, aiLeft: Int? = nil, lastMeal: String? = nil, groupPhotos: Int = 0,
            lastShared: String? = nil, problems: [String: String] = [:], waitingVersion: String? = nil,
            photo: [UInt8]? = nil, countdownButton: Bool = false
        ) {
            self.people = people
            self.dayStarted = dayStarted
            self.aiLeft = aiLeft
            self.lastMeal = lastMeal
            self.groupPhotos = groupPhotos
            self.lastShared = lastShared
            self.problems = problems
            self.waitingVersion = waitingVersion
            self.photo = photo
            self.countdownButton = countdownButton
        }
    }

    /// The discovery configs `snapshot` needs, topic to JSON.
    public func configs(_ snapshot: Snapshot, words: Words) -> [String: [UInt8]] {
        var configs: [String: [UInt8]] = [:]
        func add(_ component: String, _ object: String, _ name: String, _ keys: [String: Any]) {
            var config = keys
            config["name"] = name
            config["unique_id"] = "\(node)_\(object)"
            config["availability_topic"] = availability
            config["device"] = device
            config["origin"] = ["name": "SnapStation", "sw_version": version]
            configs["\(prefix)/\(component)/\(node)/\(object)/config"] = Self.json(config)
        }
        let macros: [(key: String, word: String, unit: String, deviceClass: String)] = [
            ("kcal", "home.kcal", "kcal", "energy"), ("protein", "home.protein", "g", "weight"),
            ("carbs", "home.carbs", "g", "weight"), ("fats", "home.fats", "g", "weight"),
        ]
        for person in snapshot.people {
            let topic = personTopic(person)
            for macro in macros {
                add(
                    "sensor", "\(person.id)_\(macro.key)", words(macro.word, ["person": person.name]),
                    [
                        "state_topic": topic, "value_template": "{{ value_json.\(macro.key) }}",
                        "unit_of_measurement": macro.unit, "device_class": macro.deviceClass, "state_class": "total",
                        "last_reset_value_template": "{{ value_json.since }}", "json_attributes_topic": topic,
                        "json_attributes_template":
                            "{{ {'goal': value_json.goal.\(macro.key), 'share': value_json.share.\(macro.key)} | tojson }}",
                        "suggested_display_precision": 0,
                    ])
            }
            add(
                "sensor", "\(person.id)_kcal_share", words("home.kcal_share", ["person": person.name]),
                [
                    "state_topic": topic, "value_template": "{{ value_json.share.kcal }}", "unit_of_measurement": "%",
                    "state_class": "measurement", "icon": "mdi:target", "suggested_display_precision": 0,
                ])
        }
        let state = base + "/state"
        // The station's own sensors, each a key of its state; the counts are measurements (statistics).
        let sensors: [(object: String, counts: Bool, icon: String)] = [
            ("ai_left", true, "mdi:robot-outline"), ("last_meal", false, "mdi:silverware-fork-knife"),
            ("group_photos", true, "mdi:image-multiple"), ("last_shared", false, "mdi:account-heart"),
        ]
        for sensor in sensors {
            var keys: [String: Any] = [
                "state_topic": state, "value_template": "{{ value_json.\(sensor.object) }}", "icon": sensor.icon,
            ]
            if sensor.counts { keys["state_class"] = "measurement" }
            add("sensor", sensor.object, words("home.\(sensor.object)"), keys)
        }
        add(
            "binary_sensor", "problem", words("home.problem"),
            [
                "state_topic": state, "value_template": "{{ value_json.problem }}", "device_class": "problem",
                "payload_on": "ON", "payload_off": "OFF", "json_attributes_topic": base + "/problems",
            ])
        add(
            "update", "software", words("home.update"),
            ["state_topic": base + "/update", "device_class": "firmware", "entity_category": "diagnostic"])
        add(
            "image", "group_photo", words("home.image"),
            ["image_topic": base + "/image", "content_type": "image/jpeg"])
        if snapshot.countdownButton {
            add(
                "button", "countdown", words("home.countdown"),
                ["command_topic": pressTopic, "payload_press": Self.press, "icon": "mdi:camera-timer"])
        }
        return configs
    }

    /// The states `snapshot` shows, topic to payload (the photo's JPEG as it is).
    public func states(_ snapshot: Snapshot, words: Words) -> [String: [UInt8]] {
        var states: [String: [UInt8]] = [:]
        let since = ISO8601DateFormatter().string(from: snapshot.dayStarted)
        for person in snapshot.people {
            func numbers(_ macros: Macros) -> [String: Any] {
                ["kcal": macros.calories, "protein": macros.protein, "carbs": macros.carbs, "fats": macros.fats]
            }
            func share(_ done: Int, _ goal: Int) -> Any {
                goal > 0 ? Int((Double(done) * 100 / Double(goal)).rounded()) : NSNull()
            }
            var state = numbers(person.today)
            state["since"] = since
            // A goal of 0 is none: null, and its share unknown in Home Assistant.
            func goal(_ grams: Int) -> Any { grams > 0 ? grams : NSNull() }
            state["goal"] = [
                "kcal": goal(person.goals.calories), "protein": goal(person.goals.protein),
                "carbs": goal(person.goals.carbs), "fats": goal(person.goals.fats),
            ]
            state["share"] = [
                "kcal": share(person.today.calories, person.goals.calories),
                "protein": share(person.today.protein, person.goals.protein),
                "carbs": share(person.today.carbs, person.goals.carbs),
                "fats": share(person.today.fats, person.goals.fats),
            ]
            states[personTopic(person)] = Self.json(state)
        }
        states[base + "/state"] = Self.json([
            "ai_left": snapshot.aiLeft.map { $0 as Any } ?? NSNull(),
            "last_meal": snapshot.lastMeal.map { $0 as Any } ?? NSNull(),
            "group_photos": snapshot.groupPhotos,
            "last_shared": snapshot.lastShared.map { $0 as Any } ?? NSNull(),
            "problem": snapshot.problems.isEmpty ? "OFF" : "ON",
        ])
        states[base + "/problems"] = Self.json(snapshot.problems)
        states[base + "/update"] = Self.json([
            "installed_version": version, "latest_version": snapshot.waitingVersion ?? version,
            "title": "SnapStation",
            "release_summary": snapshot.waitingVersion.map { words("home.update_waiting", ["version": $0]) as Any }
                ?? NSNull(),
        ])
        // No photo: the retained one goes (an empty payload clears it at the broker).
        states[base + "/image"] = snapshot.photo ?? []
        return states
    }

    private func personTopic(_ person: Snapshot.Person) -> String { "\(base)/person/\(person.id)/state" }

    private var device: [String: Any] {
        var device: [String: Any] = [
            "identifiers": [node], "name": stationName, "manufacturer": "SnapStation", "model": "SnapStation",
            "sw_version": version,
        ]
        if let page { device["configuration_url"] = page }
        return device
    }

    static func json(_ value: Any) -> [UInt8] {
        let data =
            (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]))
        return data.map { Array($0) } ?? []
    }
}
