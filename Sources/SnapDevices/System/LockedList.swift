import SnapFiles
import Synchronization

/// A list several threads append to, emptied once.
final class LockedList<Element: Sendable>: Sendable {
    private let items = Lock<[Element]>([])

    init() {}

    func append(_ item: Element) { items.withLock { $0.append(item) } }

    /// Everything appended, newest first (the order to undo it), leaving the list empty.
    func removeAll() -> [Element] {
        items.withLock { items in
            defer { items = [] }
            return items.reversed()
        }
    }
}
