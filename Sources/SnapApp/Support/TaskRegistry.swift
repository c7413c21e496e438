import SnapFiles
import Synchronization

/// Tasks kept by key so they can be replaced or cancelled: the station's timers and its analyses.
///
/// Starting a task under a key cancels the one it replaces; `cancelAll` runs at shutdown so no task
/// outlives the service that made it.
final class TaskRegistry<Key: Hashable & Sendable>: Sendable {
    private let tasks = Lock<[Key: Task<Void, Never>]>([:])

    func start(_ key: Key, _ operation: @escaping @Sendable () async -> Void) {
        let task = Task { await operation() }
        let old = tasks.withLock { tasks in tasks.updateValue(task, forKey: key) }
        old?.cancel()
    }

    func cancel(_ key: Key) {
        tasks.withLock { tasks in tasks.removeValue(forKey: key) }?.cancel()
    }

    func cancelAll() {
        let all = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in all { task.cancel() }
    }
}
