import SnapCore

/// The one queue every service feeds and the station's loop drains, in order. Each event carries the
/// moment it was sent, so the loop can tell how long events wait for it (`LatencyStats`).
public struct EventBus: Sendable {
    /// An event and when it was sent.
    public struct Stamped: Sendable {
        public var event: Event
        public var sent: ContinuousClock.Instant
        /// The owner's page's number for the event, when the page waits until the loop handled it
        /// (`StationBoard.deliver`).
        public var ticket: Int?
    }

    public let stamped: AsyncStream<Stamped>
    private let continuation: AsyncStream<Stamped>.Continuation

    public init() {
        (stamped, continuation) = AsyncStream<Stamped>.makeStream()
    }

    /// The events alone, for a reader that does not time them.
    public var events: AsyncMapSequence<AsyncStream<Stamped>, Event> { stamped.map(\.event) }

    public func send(_ event: Event, ticket: Int? = nil) {
        continuation.yield(Stamped(event: event, sent: .now, ticket: ticket))
    }

    public func finish() {
        continuation.finish()
    }
}
