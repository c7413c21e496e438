extension StationMachine {
    /// `.restartForUpdate`, once, when an installed update waits and nothing is under way: the ready
    /// screen, the resting screen or a lock. A countdown, a photo being processed or reviewed, an upload
    /// or an analysis in front of someone finishes first; the restart comes with the next calm phase.
    /// A backup's progress: the ready screen shows it (and only it changes).
    mutating func backupNoted(_ note: BackupNote?, now: Instant) -> [Action] {
        guard note != backup else { return [] }
        backup = note
        if case .ready = phase { return transition(to: phase, now: now) }
        return []
    }

    /// Keys, the time zone or the AI service changed on the page wait for the station's restart, at the next
    /// calm phase.
    mutating func startChanged() -> [Action] {
        restartWaiting = true
        return [.log(.notice, "changed on the owner's page: the station restarts to use it")] + restartWhenCalm()
    }

    /// What the page changed that is taken at start goes first; the update waits in its slot.
    mutating func restartWhenCalm() -> [Action] {
        if restartWaiting, phase.isCalm {
            restartWaiting = false
            return [.restartForChanges, .log(.notice, "the station is idle: restarting to use what the page changed")]
        }
        guard case .restarting(let version)? = update, !restartAsked else { return [] }
        guard phase.isCalm else { return [] }
        restartAsked = true
        return [
            .restartForUpdate(version: version),
            .log(.notice, "update: the station is idle: restarting into \(version)"),
        ]
    }
}
