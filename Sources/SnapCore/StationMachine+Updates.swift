extension StationMachine {
    /// `.restartForUpdate`, once, when an installed update waits and nothing is under way: the ready
    /// screen, the resting screen or a lock. A countdown, a photo being processed or reviewed, an upload
    /// or an analysis in front of someone finishes first; the restart comes with the next calm phase.
    mutating func restartWhenCalm() -> [Action] {
        guard case .restarting(let version)? = update, !restartAsked else { return [] }
        guard phase.isCalm else { return [] }
        restartAsked = true
        return [
            .restartForUpdate(version: version),
            .log(.notice, "update: the station is idle: restarting into \(version)"),
        ]
    }
}
