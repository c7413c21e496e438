import SnapCore

/// The one queue every service feeds and the station's loop drains, in order.
public struct EventBus: Sendable {
    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    public init() {
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    public func send(_ event: Event) {
        continuation.yield(event)
    }

    public func finish() {
        continuation.finish()
    }
}
