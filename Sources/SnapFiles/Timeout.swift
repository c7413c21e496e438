/// Runs `work` and gives its value, or nil when `limit` of `clock` passes first. Whichever ends first, the
/// other is cancelled, and this returns once both have returned (structured: nothing is left running), so
/// `work` must end when it is cancelled. The one time-out of the shell: a page's call, an analysis's
/// limit, a camera's start, the reset's farewell and the broker's trial all wait through it, on the clock
/// they are given. On the machine's clock a limit's sleep cancelled early still holds its place in the
/// runtime until its deadline (the reason `TimerThread` exists): one per call, gone at its limit.
public func withTimeout<Value: Sendable>(
    _ limit: Duration, on clock: any ShellClock, _ work: @escaping @Sendable () async -> Value
) async -> Value? {
    await withTaskGroup(of: Value?.self) { race in
        race.addTask { await work() }
        race.addTask {
            try? await clock.sleep(for: limit)
            return nil
        }
        let first = await race.next() ?? nil
        race.cancelAll()
        return first
    }
}
