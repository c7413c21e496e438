import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How long a client may take, and how many connections it may hold: slow clients cannot hold every
/// socket and keep the owner out. Each connection must send a request's head within `head` of opening
/// (or of the previous answer, on a kept-alive connection), and the rest of the request within `body`
/// of its head; one client (an address, an IPv6 /64) holds at most `perClient` connections. Hummingbird's
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
    private let counts = Mutex<[String: Int]>([:])

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
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let key = PairingDesk.clientKey(address)
        guard counts.admit(key, limit: limits.perClient) else {
            client = ""
            context.close(promise: nil)
            return
        }
        client = key
        arm(limits.head, context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(limits.body, context)
        case .end: disarm()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The answer is out: the next request's head has `head` to come.
        if case .end = unwrapOutboundIn(data) { arm(limits.head, context) }
        context.write(data, promise: promise)
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

    private func arm(_ after: TimeAmount, _ context: ChannelHandlerContext) {
        disarm()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: after) { channel.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
