extension Screen {
    /// What the screen says, in one line of plain text: the headless display writes it beside each frame
    /// (`NNNNNN-name.txt`, `latest.txt`), so a test or a person reading a log sees the numbers on it
    /// without reading pixels.
    public var caption: String {
        switch self {
        case .ready(let screen):
            var parts = ["ready", "\(screen.mode.rawValue) mode"]
            if let group = screen.groupName { parts.append(group) }
            if let person = screen.person { parts.append("\(Self.named(person))'s day") }
            parts.append(
                "\(screen.totals.calories) kcal P \(screen.totals.protein) C \(screen.totals.carbs) F \(screen.totals.fats)"
            )
            parts.append("\(screen.mealThumbnails.count) meal(s)")
            if screen.mode == .meal && screen.goals.hasAny {
                let goals = screen.goals
                parts.append("goals \(goals.calories) kcal P \(goals.protein) C \(goals.carbs) F \(goals.fats)")
            }
            if screen.mode == .meal { parts.append("\(screen.analysesLeft) analyses left") }
            if let jar = screen.jar {
                parts.append("jar \(jar.stickers.count)")
                // Each person's stickers by their colour, where the jar marks them.
                let colours = jar.stickers.compactMap { $0.person?.colour.rawValue }
                if !colours.isEmpty {
                    let counted = Dictionary(colours.map { ($0, 1) }, uniquingKeysWith: +).sorted { $0.key < $1.key }
                    parts.append("marked " + counted.map { "\($0.key) \($0.value)" }.joined(separator: " "))
                }
                if let index = jar.highlighted {
                    let sticker = jar.stickers[index]
                    parts.append("showing \(sticker.title) \(sticker.totals.calories) kcal")
                }
            }
            if screen.cameras.count > 1 { parts.append("camera \(screen.cameras[screen.camera])") }
            if screen.flashOff { parts.append("flash off") }
            if screen.pairingHint { parts.append("how to pair shown") }
            if !screen.missingDevices.isEmpty {
                parts.append("missing: " + screen.missingDevices.map(\.rawValue).joined(separator: ", "))
            }
            switch screen.update {
            case .installing(let version, let percent)?: parts.append("update: installing \(version) \(percent)%")
            case .restarting(let version)?: parts.append("update: restarting into \(version)")
            case .rolledBack(let tried, let running)?:
                parts.append("update: \(tried) did not start, running \(running)")
            case nil: break
            }
            switch screen.backup {
            case .making(let percent)?: parts.append("backup: making \(percent)%")
            case .checking(let percent)?: parts.append("backup: checking \(percent)%")
            case nil: break
            }
            return parts.joined(separator: " · ")
        case .countdown(let screen):
            return "countdown · \(screen.secondsLeft)" + (screen.person.map { " · for \(Self.named($0))" } ?? "")
        case .mealResult(let screen):
            let totals = screen.analysis.totals
            return
                "meal-result · \(screen.analysis.title) · \(totals.calories) kcal P \(totals.protein) C \(totals.carbs) F \(totals.fats) · saves in \(screen.autoSaveIn) s"
                + (screen.person.map { " · for \(Self.named($0))" } ?? "")
        case .groupReview(let screen): return "group-review · \(screen.group) · \(screen.secondsLeft)"
        case .uploading(let screen): return "uploading · \(screen.group) · \(Int(screen.progress * 100)) %"
        case .sent(let group): return "sent · \(group)"
        case .pairing(let screen):
            switch screen.note {
            case .paired(let name): return "pairing · paired \(name)"
            case .forgotten: return "pairing · every paired browser forgotten"
            case .none: return "pairing · " + (screen.pairing.map { $0.url.isEmpty ? "not reachable" : $0.url } ?? "…")
            }
        case .idle(let screen): return "idle · \(screen.clock)" + (screen.displayOff ? " · display off" : "")
        case .menu(let screen):
            let entries = screen.entries.enumerated().map { index, entry in
                (index == screen.selected ? "> " : "") + entry.caption
            }
            return "menu · " + entries.joined(separator: " · ")
        case .week(let week):
            let days = week.days.map { $0.totals.map { "\($0.calories)" } ?? "-" }.joined(separator: " ")
            return "week · \(days) kcal" + (week.goals.calories > 0 ? " · goal \(week.goals.calories)" : "")
        case .locked(let lock):
            guard let day = lock.day else { return name }
            return "\(name) · today \(day.totals.calories) kcal of \(day.goals.calories)"
        case .question(let screen): return name + (screen.secondsLeft.map { " · keeps everything in \($0) s" } ?? "")
        case .capturing, .processing, .retake, .problem: return name
        }
    }

    /// A person as a caption names them: the owner without a name as "owner".
    private static func named(_ person: Person) -> String { person.name.isEmpty ? "owner" : person.name }
}
