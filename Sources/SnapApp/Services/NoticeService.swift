import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapServices
import SnapText

/// Sends the state machine's notices (`Action.notify`) to the owner's ntfy topic or webhook, one after
/// another, in the station's language at the time it sends.
///
/// Nothing grows while the address cannot be reached: at most `capacity` notices wait (the newest kept),
/// each is tried `tries` times (at once, then after each of `backoff`), and one that still fails is given
/// up with the reason in the log. A notice is news of the moment, not a record: the store keeps none, so
/// notices waiting when the station stops are not sent after it starts.
public final class NoticeService: Service, NoticeTrier, Sendable {
    private let stream: AsyncStream<Notice>
    private let continuation: AsyncStream<Notice>.Continuation
    private let sender: NoticeSender
    private let settings: @Sendable () -> (NoticeSettings, Language)
    private let station: String
    private let page: String?
    private let backoff: [Duration]
    private let logger: Logger
    /// The time a retry waits on and a message is dated by.
    private let clock: any ShellClock

    /// How many notices wait at most.
    public static let capacity = 16

    public init(
        sender: NoticeSender = NoticeSender(), station: String, page: String?,
        backoff: [Duration] = [.seconds(10), .seconds(60)],
        settings: @escaping @Sendable () -> (NoticeSettings, Language), logger: Logger,
        clock: any ShellClock = SystemClock()
    ) {
        (stream, continuation) = AsyncStream.makeStream(
            of: Notice.self, bufferingPolicy: .bufferingNewest(Self.capacity))
        self.sender = sender
        self.station = station
        self.page = page
        self.backoff = backoff
        self.settings = settings
        self.logger = logger
        self.clock = clock
    }

    /// Sends `notice` when the ones before it went.
    public func post(_ notice: Notice) {
        if case .dropped(let old) = continuation.yield(notice) {
            logger.warning("notice not sent, too many waiting: \(old.kind.rawValue)")
        }
    }

    /// Sends the owner's test to `settings` at once, beside the queue: the page waits for its outcome.
    public func tryNotices(_ settings: NoticeSettings, language: Language) async -> NoticeOutcome {
        let words = Words(language)
        let message = NoticeSender.Message(
            kind: nil, title: words("notice.test.title", ["station": station]), message: words("notice.test.message"),
            station: station, page: page, language: language.rawValue, at: clock.wall)
        let outcome = await sender.send(message, to: settings)
        logger.info("test notice to \(settings.format.rawValue): \(outcome)")
        return outcome
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await notice in self.stream {
                await self.deliver(notice)
            }
        }
    }

    private func deliver(_ notice: Notice) async {
        var waits = backoff[...]
        while !Task.isCancelled {
            let (settings, language) = self.settings()
            // Turned off, or the address removed, since the machine said it.
            guard settings.sends(notice.kind) else { return }
            let words = Words(language)
            let (title, text) = words.notice(notice)
            let message = NoticeSender.Message(
                kind: notice.kind, title: title, message: text, station: station, page: page,
                language: language.rawValue, at: clock.wall)
            switch await sender.send(message, to: settings) {
            case .sent:
                logger.info("notice sent (\(notice.kind.rawValue)): \(title)")
                return
            case .refused(let reason):
                logger.warning("notice \(notice.kind.rawValue) refused by \(settings.format.rawValue): \(reason)")
                return
            case .failed(let reason):
                guard let wait = waits.popFirst() else {
                    logger.warning("notice \(notice.kind.rawValue) not sent, given up: \(reason)")
                    return
                }
                logger.info("notice \(notice.kind.rawValue) not sent (\(reason)): trying again in \(wait)")
                try? await clock.sleep(for: wait)
            }
        }
    }
}
