import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import SnapWeb

/// A connection's deadlines on NIO's embedded loop, whose time the test moves (`advanceTime`), as
/// Hummingbird tests its own connection state: each deadline asserted at its exact instant (open a
/// millisecond before, closed at it), with no wall time waited. The live server's tests (WebServerTests)
/// hold the same guard in the real pipeline: that a trickling client is closed and a checked upload is not.
@Suite("The page's connection deadlines, on the event loop's own time")
struct ConnectionGuardTests {
    private static let limits = ConnectionLimits(head: .seconds(15), body: .seconds(30), perClient: 2)

    /// A connection from `address` with the guard in its pipeline, open, its page asking for bytes.
    private func connection(
        from address: String = "192.0.2.10", counts: ConnectionCounts = ConnectionCounts(),
        limits: ConnectionLimits = Self.limits
    ) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ConnectionGuard(limits: limits, counts: counts))
        let remote = try SocketAddress(ipAddress: address, port: 40_000)
        channel.remoteAddress = remote
        try channel.connect(to: remote).wait()
        channel.read()
        return channel
    }

    private var head: HTTPRequestPart {
        .head(HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/pair"))
    }

    /// A request's head read from the socket, and the page asking for its body.
    private func requestHead(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(head)
        channel.read()
    }

    /// A byte of the body read from the socket, and the page asking for the next (its buffer has room).
    private func byte(_ channel: EmbeddedChannel, asking: Bool = true) throws {
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "c")))
        if asking { channel.read() }
    }

    /// Moves the loop's time on by `milliseconds`; true if the connection is still open after.
    private func after(_ milliseconds: Int64, _ channel: EmbeddedChannel) -> Bool {
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(milliseconds))
        return channel.isActive
    }

    @Test("should close a connection whose head has not come at exactly its deadline")
    func headDeadline() throws {
        let channel = try connection()
        #expect(after(14_999, channel), "open a millisecond before the head's 15 s")
        #expect(!after(1, channel), "closed at 15 s")
    }

    @Test("should close a body that trickles a byte a second at exactly 30 s from its head")
    func tricklingBody() throws {
        let channel = try connection()
        #expect(after(3_000, channel))
        try requestHead(channel)
        for _ in 0..<29 {
            #expect(after(1_000, channel))
            try byte(channel)
        }
        #expect(after(999, channel), "29.999 s after the head, bytes still coming: open")
        #expect(!after(1, channel), "30 s after the head: closed, however recent the last byte")
    }

    @Test("should stop a body's deadline while the page's buffer is full, and go on with the time it had left")
    func pageWaitsOnItself() throws {
        let channel = try connection()
        try requestHead(channel)
        #expect(after(10_000, channel))
        // A piece fills the page's buffer: the page does not ask for more, the client waits on the page.
        try byte(channel, asking: false)
        #expect(after(600_000, channel), "ten minutes of the page's own wait: still open")
        channel.read()
        #expect(after(19_999, channel), "the 20 s it had left, less a millisecond: open")
        #expect(!after(1, channel), "closed when the 20 s it had left ran out")
    }

    @Test("should restart a checked upload's deadline with each piece, and close it 30 s after the last")
    func streamingUpload() throws {
        let channel = try connection()
        try requestHead(channel)
        // The page checked the head (a paired browser's upload): its body may stream.
        channel.triggerUserOutboundEvent(ConnectionGuard.BodyStreams(), promise: nil)
        for _ in 0..<20 {
            #expect(after(29_000, channel), "a piece every 29 s for ten minutes: open")
            try byte(channel)
        }
        #expect(after(29_999, channel))
        #expect(!after(1, channel), "30 s of silence: closed")
    }

    @Test("should give no ordinary body the streaming deadline: the event is the page's, after its check")
    func onlyTheEventStreams() throws {
        let channel = try connection()
        try requestHead(channel)
        for _ in 0..<3 {
            #expect(after(9_000, channel))
            try byte(channel)
        }
        #expect(after(2_999, channel))
        #expect(!after(1, channel), "30 s from its head, pieces or not")
    }

    @Test("should wait without a deadline while the answer is made, then give the next head its 15 s")
    func keptAlive() throws {
        let channel = try connection()
        try requestHead(channel)
        #expect(after(1_000, channel))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.read()
        #expect(after(3_600_000, channel), "an hour on the group's server: no deadline while the page answers")
        try channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .ok))).wait()
        try channel.writeAndFlush(HTTPResponsePart.end(nil)).wait()
        #expect(after(14_999, channel), "the next head's 15 s, from the answer's end")
        #expect(!after(1, channel))
    }

    @Test("should keep a body's deadline running after an early answer (a 413 before the body ended)")
    func earlyAnswer() throws {
        let channel = try connection()
        try requestHead(channel)
        #expect(after(5_000, channel))
        try channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .contentTooLarge))).wait()
        try channel.writeAndFlush(HTTPResponsePart.end(nil)).wait()
        try byte(channel)
        #expect(after(24_999, channel), "the body's 30 s from its head still run")
        #expect(!after(1, channel))
    }

    @Test("should close a client's connection past its share at once, and count the others' apart")
    func share() throws {
        let counts = ConnectionCounts()
        let first = try connection(from: "192.0.2.20", counts: counts)
        let second = try connection(from: "192.0.2.20", counts: counts)
        let third = try connection(from: "192.0.2.20", counts: counts)
        let other = try connection(from: "192.0.2.21", counts: counts)
        #expect(first.isActive && second.isActive && other.isActive)
        #expect(!third.isActive, "a third from an address that holds its two")
        _ = try? first.close().wait()
        let again = try connection(from: "192.0.2.20", counts: counts)
        #expect(again.isActive, "a closed connection gives its place back")
    }
}
