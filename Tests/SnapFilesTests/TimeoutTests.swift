import SnapFiles
import SnapTestSupport
import Synchronization
import Testing

@Suite("withTimeout: a value, or nil at the limit of the clock it is given")
struct TimeoutTests {
    /// Work that ends only when it is cancelled (it says so) or answered.
    final class Pending: Sendable {
        let answer = Lock<CheckedContinuation<Int, Never>?>(nil)
        private let cancelledFlag = Atomic<Bool>(false)
        var cancelled: Bool { cancelledFlag.load(ordering: .relaxed) }

        func work() async -> Int {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in answer.withLock { $0 = continuation } }
            } onCancel: {
                cancelledFlag.store(true, ordering: .relaxed)
                answer.withLock { $0.take() }?.resume(returning: -1)
            }
        }

        func reply(_ value: Int) -> Bool {
            guard let waiting = answer.withLock({ $0.take() }) else { return false }
            waiting.resume(returning: value)
            return true
        }
    }

    /// A call with a 10 s limit on a held clock, once its limit waits on the clock.
    func started() async -> (HeldClock, Pending, Task<Int?, Never>) {
        let clock = HeldClock()
        let pending = Pending()
        let call = Task { await withTimeout(.seconds(10), on: clock) { await pending.work() } }
        #expect(await clock.sleepers() == [.seconds(10)], "the limit's wait")
        return (clock, pending, call)
    }

    @Test("should give the work's value when it comes first, and leave no wait on the clock")
    func valueFirst() async {
        let (clock, pending, call) = await started()
        clock.advance(by: .milliseconds(9_999))
        #expect(await eventually { pending.reply(7) })
        #expect(await call.value == 7)
        #expect(clock.deadlines.isEmpty, "the limit's wait is cancelled with the answer")
        #expect(!pending.cancelled)
    }

    @Test("should give nil at exactly the limit, and cancel the work")
    func limitFirst() async {
        let (clock, pending, call) = await started()
        clock.advance(by: .milliseconds(9_999))
        #expect(clock.deadlines == [.seconds(10)], "still waiting at 9.999 s")
        clock.advance(by: .milliseconds(1))
        #expect(await call.value == nil)
        #expect(pending.cancelled, "the work was cancelled, and returned")
    }

    @Test("should end both when the caller is cancelled")
    func callerCancelled() async {
        let (clock, pending, call) = await started()
        call.cancel()
        let value = await call.value
        #expect(value == nil || value == -1, "nil (the limit's wait ended first) or the work's answer to cancel")
        #expect(pending.cancelled)
        #expect(clock.deadlines.isEmpty)
    }
}
