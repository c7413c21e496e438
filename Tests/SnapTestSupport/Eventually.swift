/// Checks `condition` until it holds: true as soon as it does, false after `seconds` worth of checks
/// `every` apart. It sleeps as a task, never blocking a thread of the cooperative pool (two on this
/// machine), which the other tests share.
///
/// It counts checks, not wall-clock time. Under the whole suite on two cores a sleeping test may wake
/// long after its deadline, before the job it waits for had its turn (CI saw a 30 s wait end with the
/// awaited service not yet resumed once); each check comes at least `every` after the last, so the
/// condition always gets at least `seconds`, and more when the pool is busy.
public func eventually(
    within seconds: Double, every interval: Duration = .milliseconds(100), _ condition: () async -> Bool
) async -> Bool {
    let step = Double(interval.components.seconds) + Double(interval.components.attoseconds) * 1e-18
    let checks = max(1, Int((seconds / step).rounded(.up)))
    for _ in 0..<checks {
        if await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return await condition()
}

/// Checks `condition` until it holds, `every` apart, under the one hang guard (`HangGuard`): true as soon
/// as it does; false on the guard, which names the file and line that waited. What a test waits for (a
/// state, a message, a page) is an event; the guard is only how long a stuck test takes to fail.
public func eventually(
    fileID: String = #fileID, line: Int = #line, every interval: Duration = .milliseconds(100),
    _ condition: () async -> Bool
) async -> Bool {
    await HangGuard.wait(for: "the condition at \(fileID):\(line)", log: nil, every: interval, condition)
}
