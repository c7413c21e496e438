import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import SnapFiles
import Synchronization

/// How long a client may take, and how many connections it may hold: slow clients cannot hold every
/// socket and keep the owner out. Each connection must send a request's head within `head` of opening
/// (or of the previous answer having gone out, on a kept-alive connection), and the rest of the request
/// within `body` of its head (not counting the time the page's full buffer keeps it from reading); one client (an address) holds at most `perClient` connections. Hummingbird's
/// idle timer restarts on every byte, so it alone does not stop a client that sends one byte at a time.
public struct ConnectionLimits: Sendable {
    public var head: TimeAmount
    public var body: TimeAmount
    public var perClient: Int
    /// All clients together (Hummingbird's `MaximumAvailableConnections`): far above one client's share,
    /// so that many slow clients still leave room for the owner.
    public var total: Int

    public init(head: TimeAmount = .seconds(15), body: TimeAmount = .seconds(30), perClient: Int = 12, total: Int = 512)
    {
        self.head = head
        self.body = body
        self.perClient = perClient
        self.total = total
    }
}

/// The connections each client holds now.
final class ConnectionCounts: Sendable {
    private let counts = Lock<[String: Int]>([:])

    /// Counts one more for `client`, unless it holds `limit` already.
    func admit(_ client: String, limit: Int) -> Bool {
        counts.withLock { counts in
            guard counts[client, default: 0] < limit else { return false }
            counts[client, default: 0] += 1
            return true
        }
    }

    func release(_ client: String) {
        counts.withLock { counts in
            let left = counts[client, default: 1] - 1
            counts[client] = left > 0 ? left : nil
        }
    }
}

/// One connection's deadlines and its place in its client's count, in the channel after the HTTP parts
/// are decoded. A deadline that passes closes the connection.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let counts: ConnectionCounts
    private var client: String?
    private var deadline: Scheduled<Void>?
    /// When the running deadline falls.
    private var due: NIODeadline?
    /// The time an ordinary body has left while its deadline is stopped: the page's buffer is full and the
    /// page waits on itself (a slow check, a busy page thread), not on the client. The deadline goes on
    /// from there when the page asks again, so a client that trickles a byte at a time still ends.
    private var left: TimeAmount?
    /// A request's head came and its end has not.
    private var reading = false
    /// The request streams an update bundle: each piece of its body restarts the body's deadline, as a
    /// bundle of hundreds of MB takes minutes over Wi-Fi; a body that stops still ends. Only the page may
    /// say so (`BodyStreams`), once it has checked the request's head: a `POST /update/upload` or
    /// `/backup/upload` of a paired browser with the session's CSRF token. Anything else, whatever its
    /// path, has the ordinary deadlines.
    private var streaming = false
    /// The page has asked the socket for more (`read`) and not had it yet (`channelReadComplete`): only
    /// then does a streaming body wait on its client. While the page's buffer is full it does not ask.
    private var asking = false

    /// Sent down the channel by the page when the request being read may stream its body.
    struct BodyStreams: Sendable {}
    /// Answers owed: requests whose answer has not gone out yet.
    private var owed = 0

    init(limits: ConnectionLimits, counts: ConnectionCounts) {
        self.limits = limits
        self.counts = counts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    /// Counts the connection against its client (closing it when the client holds its share), and starts
    /// the wait for the first head.
    private func admit(_ context: ChannelHandlerContext) {
        guard client == nil else { return }
        // By full address: a home network's IPv6 devices share one /64, and must not share a share.
        let key = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard counts.admit(key, limit: limits.perClient) else {
            client = ""
            context.close(promise: nil)
            return
        }
        client = key
        arm(limits.head, context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            reading = true
            owed += 1
            streaming = false
            left = nil
            arm(limits.body, context.channel)
        case .end:
            reading = false
            // While the answer is made there is no deadline (a page may wait on the group's server).
            if owed == 0 { arm(limits.head, context.channel) } else { disarm() }
        case .body:
            if streaming && owed > 0 { arm(limits.body, context.channel) }
        }
        context.fireChannelRead(data)
    }

    /// A body's deadline runs only while the page waits on the client: when the page falls behind (a
    /// head not checked yet on a busy machine, a bundle's writer on a slow card), the pieces already read
    /// fill the page's buffer and the page stops asking the socket for more (back-pressure). Waiting on
    /// ourselves is no fault of the client's, so the deadline stops at the end of each read and goes on
    /// when the page asks for the next (`read`): a streaming bundle's whole again, an ordinary body's
    /// with the time it had left. With the page asking, `read` follows each read at once.
    func channelReadComplete(context: ChannelHandlerContext) {
        asking = false
        if reading && owed > 0 {
            left = streaming ? nil : due.map { max(.zero, $0 - context.eventLoop.now) }
            disarm()
        }
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        asking = true
        if reading && owed > 0 && deadline == nil {
            arm(streaming ? limits.body : left ?? limits.body, context.channel)
        }
        context.read()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is BodyStreams else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if reading && owed > 0 {
            streaming = true
            // The head was checked while the body's first pieces filled the page's buffer: until the page
            // asks for more, it waits on itself (a slow check, a slow card), not on the client.
            if asking { arm(limits.body, context.channel) } else { disarm() }
        }
        promise?.succeed()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // The answer has gone out once its end is written (a whole body is written with it): then the
        // next request's head has `head` to come. An answer sent before its request ended (an early 413)
        // leaves the body's deadline running.
        let written = promise ?? context.eventLoop.makePromise()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        written.futureResult.whenComplete { _ in
            let guardian = handler.value
            guardian.owed = max(0, guardian.owed - 1)
            if guardian.owed == 0 && !guardian.reading && guardian.client?.isEmpty == false {
                guardian.arm(guardian.limits.head, channel)
            } else if guardian.reading && guardian.deadline == nil && guardian.client?.isEmpty == false {
                // Answered before its body ended (an early 413) while the deadline was stopped: it runs on.
                guardian.arm(guardian.left ?? guardian.limits.body, channel)
            }
        }
        context.write(data, promise: written)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        if let client, !client.isEmpty { counts.release(client) }
        client = ""
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        if let client, !client.isEmpty { counts.release(client) }
        client = ""
    }

    /// Starts a deadline `after` from now: the event loop's time (`EventLoop.now`), which the tests move
    /// on NIO's embedded loop (ConnectionGuardTests), as the scheduled close is the loop's too.
    private func arm(_ after: TimeAmount, _ channel: any Channel) {
        disarm()
        due = channel.eventLoop.now + after
        deadline = channel.eventLoop.scheduleTask(in: after) { channel.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
        due = nil
    }
}
