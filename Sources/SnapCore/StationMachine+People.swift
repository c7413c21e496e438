/// The person picked at the station for the next meals, and until when (uptime); nil until the next meal
/// is saved (`household.choice_minutes` = 0).
struct PersonPick: Sendable, Hashable {
    var person: PersonID
    var until: Duration?
}

extension StationMachine {
    /// Whose the next meal is: the person last picked with the mode button while the pick holds, the
    /// owner otherwise (and always, with one person).
    public func pickedPerson(now: Instant) -> PersonID {
        guard let picked, picked.until.map({ now.uptime < $0 }) ?? true else { return .first }
        return household.present(picked.person)
    }

    /// The person the countdown and the result sheet name: nil with one person, who never sees it.
    func shownPerson(now: Instant) -> Person? {
        household.isShared ? household.person(pickedPerson(now: now)) : nil
    }

    /// The person the result sheet of `photo` names: a queued answer's own (whose photo it was, not
    /// whoever is picked when it comes back), else the pick.
    func shownPerson(of photo: PhotoID, now: Instant) -> Person? {
        household.isShared ? household.person(reviewPerson(of: photo) ?? pickedPerson(now: now)) : nil
    }

    /// Whose the queued answer for `photo` is (the owner's, should they have left the household); nil
    /// when `photo` is no queued answer.
    func reviewPerson(of photo: PhotoID) -> PersonID? {
        reviews.first { $0.photo.id == photo }.map { household.present($0.person) }
    }

    /// The mode button on the meal result or during the countdown, with more than one person: the next
    /// person's meal. On a used share's screen, the photo goes to the next person: analysed if their
    /// share allows. Nil when the gesture picks nobody.
    mutating func pickGesture(_ gesture: ButtonGesture, now: Instant) -> [Action]? {
        guard gesture == .mode, household.isShared else { return nil }
        // A queued answer's sheet: the meal goes to the next person; the pick for the next meals stays.
        if case .mealResult(let photo, _, _, _) = phase, let index = reviews.firstIndex(where: { $0.photo == photo }) {
            let next = household.next(after: household.present(reviews[index].person))
            reviews[index].person = next
            return [.show(screen(now: now)), .log(.info, "the meal \(photo.id) is \(next)'s (mode button)")]
        }
        let next = household.next(after: pickedPerson(now: now))
        switch phase {
        case .mealResult, .countdown: break
        case .problem(.shareUsed, let photo?):
            picked = PersonPick(person: next, until: holdsFrom(now))
            return use(photo, now: now)
        default: return nil
        }
        picked = PersonPick(person: next, until: holdsFrom(now))
        // The screen only: the countdown's and the result's timers run on.
        return [.show(screen(now: now)), .log(.info, "the next meal is \(next)'s (mode button)")]
    }

    /// The person a meal saved at `now` is for; the pick then holds from now on.
    mutating func personSaving(now: Instant) -> PersonID {
        let person = pickedPerson(now: now)
        if let pick = picked, person == pick.person, settings.choiceHolds > .zero {
            picked = PersonPick(person: person, until: holdsFrom(now))
        } else {
            picked = nil
        }
        return person
    }

    /// The household changed on the page: the station names the people as they are now; a pick of someone
    /// removed falls back to the owner.
    mutating func householdChanged(_ changed: Household, now: Instant) -> [Action] {
        household = changed
        if let pick = picked, changed.person(pick.person) == nil { picked = nil }
        switch phase {
        case .ready, .mealResult, .countdown: return [.show(screen(now: now))]
        default: return []
        }
    }

    /// The goals the picked person's day is measured against (`Household.goals`).
    func pickedGoals(_ now: Instant) -> Macros {
        household.goals(of: pickedPerson(now: now), station: inForce.goals)
    }

    /// Today's meals of the person picked now: the ready screen's and the lock's day (all of them, with
    /// one person).
    func pickedMeals(_ now: Instant) -> [Meal] {
        let person = pickedPerson(now: now)
        return todaysMeals(now).filter { !household.isShared || $0.person == person }
    }

    /// How long until the pick runs out and the ready screen shows the owner's day again; nil without one.
    func pickRunsOut(_ now: Instant) -> Duration? {
        guard household.isShared, let until = picked?.until, until > now.uptime else { return nil }
        return until - now.uptime
    }

    private func holdsFrom(_ now: Instant) -> Duration? {
        settings.choiceHolds > .zero ? now.uptime + settings.choiceHolds : nil
    }
}
