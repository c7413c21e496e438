import SnapCore
import SnapText

/// The page's names for the station's values, its days and its numbers, in the page's language
/// (Sources/SnapText/Catalogs/en-page.json); the names the display shares are SnapCore's
/// (`Words+Station.swift`: `dietary(_:)`, `device(_:)`, `kcal(_:)`). Each body calls its `Words` `words`,
/// as the pages do, so `CatalogTests`' key scan (`words("…")`) reads these keys too.
extension Words {
    /// What the station's screen shows, as the status page says it: one case for each screen, so a new
    /// screen is named here by the compiler.
    func screen(_ screen: Screen) -> String {
        let words = self
        switch screen {
        case .ready: return words("page.screen.ready")
        case .countdown: return words("page.screen.countdown")
        case .capturing, .retake: return words("page.screen.photo")
        case .processing(let processing):
            switch processing.stage {
            case .processing: return words("page.screen.photo")
            case .analysing: return words("page.screen.analysing")
            }
        case .mealResult: return words("page.screen.meal_result")
        case .groupReview, .uploading, .sent: return words("page.screen.sharing")
        case .locked: return words("page.screen.locked")
        case .problem: return words("page.screen.problem", ["name": screen.name])
        case .idle: return words("page.screen.idle")
        case .pairing: return words("page.screen.pairing")
        case .menu: return words("page.screen.menu")
        case .week: return words("page.screen.week")
        case .question(let question):
            switch question.question {
            case .reset: return words(question.secondsLeft == nil ? "page.screen.erasing" : "page.screen.reset")
            case .restore: return words(question.secondsLeft == nil ? "page.screen.restoring" : "page.screen.restore")
            }
        }
    }

    /// A number as the page shows it: whole without decimals, else with two ("0.35", "0,35").
    func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? integer(Int(value)) : decimal(value, digits: 2)
    }

    /// "gluten", as an item "contains" it.
    func food(_ tag: FoodTag) -> String {
        let words = self
        switch tag {
        case .gluten: return words("page.food.gluten")
        case .lactose: return words("page.food.lactose")
        case .dairy: return words("page.food.dairy")
        case .egg: return words("page.food.egg")
        case .meat: return words("page.food.meat")
        case .fish: return words("page.food.fish")
        case .shellfish: return words("page.food.shellfish")
        case .honey: return words("page.food.honey")
        }
    }

    /// A unit as the shopping list writes it: the symbols as they are ("g", "oz", "fl oz"), a piece, the
    /// spoons and the cup in the page's language, so that a line typed on the page and one the AI added
    /// merge.
    func unit(_ unit: PlanUnit) -> String {
        let words = self
        switch unit {
        case .g, .ml, .oz, .lb, .flOz: return unit.rawValue
        case .piece: return words("page.shopping.piece")
        case .tbsp: return words("page.unit.tbsp")
        case .tsp: return words("page.unit.tsp")
        case .cup: return words("page.unit.cup")
        }
    }

    /// "sepia".
    func photoFilter(_ filter: PhotoFilter) -> String {
        let words = self
        switch filter {
        case .sepia: return words("page.filter.sepia")
        case .mono: return words("page.filter.mono")
        case .vivid: return words("page.filter.vivid")
        case .vignette: return words("page.filter.vignette")
        case .sharpen: return words("page.filter.sharpen")
        }
    }

    /// "meal", as the page's mode list and status name it.
    func mode(_ mode: StationMode) -> String {
        let words = self
        switch mode {
        case .meal: return words("page.mode.meal")
        case .group: return words("page.mode.group")
        }
    }

    /// How the last update ended, in the person's words.
    func updateOutcome(_ outcome: UpdateOutcome) -> String {
        let words = self
        switch outcome {
        case .updated(let version, let from):
            return words("page.update.outcome.updated", ["version": version, "from": from])
        case .rolledBack(let tried, let running):
            return words("page.update.outcome.rolled_back", ["tried": tried, "running": running])
        }
    }

    /// Why an update was not installed, in the person's words; RAUC's refusal is RAUC's own.
    func updateFailure(_ failure: UpdateFailure) -> String {
        let words = self
        switch failure {
        case .notManaged(let why): return words("page.update.failure.not_managed", ["reason": why])
        case .unconfirmed: return words("page.update.failure.unconfirmed")
        case .busy: return words("page.update.failure.busy")
        case .older(let bundle, let running):
            return words("page.update.failure.older", ["version": bundle, "running": running])
        case .refused(let why): return why
        case .noBackup(let why): return words("page.update.failure.no_backup", ["reason": why])
        }
    }

    /// A group server's failure in the person's words; a refusal is the server's own words.
    func groupFailure(_ failure: UploadFailure) -> String {
        let words = self
        switch failure {
        case .rejected(let reason): return reason
        case .offline: return words("page.group.failure.offline")
        case .signInFailed(let reason): return words("page.group.failure.sign_in", ["reason": reason])
        case .untrusted(let reason): return words("page.group.failure.untrusted", ["reason": reason])
        case .alreadySentToday, .destinationFull: return words("page.group.failure.refused")
        }
    }
}
