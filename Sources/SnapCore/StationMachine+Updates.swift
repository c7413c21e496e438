extension StationMachine {
    /// `.restartForUpdate`, once, when an installed update waits and nothing is under way: the ready
    /// screen, the resting screen or a lock. A countdown, a photo being processed or reviewed, an upload
    /// or an analysis in front of someone finishes first; the restart comes with the next calm phase.
    /// A backup the owner restored waits for the station's restart, at the next calm phase.
    /// A backup's progress: the ready screen shows it (and only it changes).
    mutating func backupNoted(_ note: BackupNote?, now: Instant) -> [Action] {
        guard note != backup else { return [] }
        backup = note
        if case .ready = phase { return transition(to: phase, now: now) }
        return []
    }

    mutating func backupRestored(_ version: String) -> [Action] {
        restoring = version
        return [.log(.notice, "a backup made by \(version) waits for the station's restart")] + restartWhenCalm()
    }

    /// Keys, the time zone or the AI service changed on the page wait for the station's restart, at the next
    /// calm phase.
    mutating func startChanged() -> [Action] {
        restartWaiting = true
        return [.log(.notice, "changed on the owner's page: the station restarts to use it")] + restartWhenCalm()
    }

    /// A restored backup goes first: it restarts the station alone (with whatever keys are entered by
    /// then), and the update waits in its slot; then what the page changed that is taken at start.
    mutating func restartWhenCalm() -> [Action] {
        if let version = restoring, phase.isCalm {
            restoring = nil
            restartWaiting = false
            return [
                .restartForRestore(version: version),
                .log(.notice, "the station is idle: restarting into the backup made by \(version)"),
            ]
        }
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
