import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: group mode")
struct GroupFlowTests {
    @Test("should walk ready → 3-2-1 → capture → review → upload → sent → lock, with the flash around the shot")
    func wholeFlow() throws {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        #expect(script.screen?.ready?.groupPhotoAvailable == true)
        #expect(script.screen?.showsLivePreview == true)

        script.press()
        #expect(script.screen?.countdownSeconds == 3)
        #expect(!script.flashOn)
        script.advance(seconds: 1)
        #expect(script.screen?.countdownSeconds == 2)
        script.advance(seconds: 1)
        #expect(script.screen?.countdownSeconds == 1)
        #expect(script.flashOn, "the LED lights a second early so exposure can settle")
        let shot = script.advance(seconds: 1)
        #expect(shot.contains(.capture))
        #expect(script.screen == .capturing(mode: .group))

        let processing = script.send(.captured(PhotoID("p1")))
        #expect(processing.contains(.process(PhotoID("p1"), sticker: false)), "a group photo needs no sticker")
        #expect(processing.contains(.setFlash(on: false)))
        #expect(script.screen == .processing(ProcessingScreen(photo: PhotoID("p1"), stage: .processing)))

        let photo = Samples.photo("p1")
        script.send(.processed(photo))
        #expect(script.screen == .groupReview(GroupReviewScreen(photo: photo, group: "Family", secondsLeft: 3)))
        script.advance(seconds: 2)
        #expect(script.screen == .groupReview(GroupReviewScreen(photo: photo, group: "Family", secondsLeft: 1)))
        let share = script.advance(seconds: 1)
        #expect(share.contains(.share(photo, group: "Family", day: Fixture.day)))

        script.send(.uploadProgress(PhotoID("p1"), 0.4))
        #expect(script.screen == .uploading(UploadingScreen(photo: photo, group: "Family", progress: 0.4)))
        script.send(.uploaded(PhotoID("p1")))
        #expect(script.screen == .sent(group: "Family"))

        script.advance(seconds: 3)
        let lock = try #require(script.screen?.lock)
        #expect(lock.reason == .group("Family"))
        // 09:00:00 + 3 s countdown + 3 s review + 3 s "Sent" = 09:00:09.
        #expect(lock.remaining == .seconds(15 * 3600 - 9))
        script.advance(seconds: 1)
        #expect(script.screen?.lock?.remaining == .seconds(15 * 3600 - 10))
    }

    @Test("should keep the lock on a press and release it at local midnight")
    func lockUntilMidnight() {
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var script = StationScript(settings: Fixture.settings(), snapshot: snapshot, startingAt: "2026-03-10 23:59:58")
        #expect(script.screen?.lock?.remaining == .seconds(2))
        let pressed = script.press()
        #expect(!pressed.contains(.capture))
        #expect(script.screen?.lock != nil)
        script.advance(seconds: 2)
        #expect(script.screen?.ready?.groupPhotoAvailable == true)
    }

    @Test("should retake on a press during the review, and send nothing")
    func retake() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        _ = Fixture.capture(&script)
        let retake = script.press()
        #expect(script.screen?.countdownSeconds == 3)
        #expect(!retake.contains { if case .share = $0 { true } else { false } })
        #expect(!script.actions.contains { if case .share = $0 { true } else { false } })
    }

    @Test("should cancel the review on a hold and go back to ready")
    func holdCancelsReview() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        _ = Fixture.capture(&script)
        script.press(.hold)
        #expect(script.screen?.ready?.groupPhotoAvailable == true)
        script.advance(seconds: 10)
        #expect(!script.actions.contains { if case .share = $0 { true } else { false } })
    }

    @Test("should say 'saved — will send when online' when offline, then lock the day")
    func offline() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        let photo = Fixture.capture(&script)
        script.advance(seconds: 3)
        script.send(.uploadFailed(photo.id, .offline))
        #expect(script.screen?.problem == .networkDown(group: "Family"))
        script.advance(seconds: 8)
        #expect(script.screen?.lock?.reason == .group("Family"))
    }

    @Test("should keep the photo and say why when the station cannot sign in, then lock the day")
    func signInFailed() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        let photo = Fixture.capture(&script)
        script.advance(seconds: 3)
        let actions = script.send(.uploadFailed(photo.id, .signInFailed("wrong email or password")))
        #expect(script.screen?.problem == .signInFailed(group: "Family", reason: "wrong email or password"))
        #expect(!actions.contains { if case .releaseGroupDay = $0 { true } else { false } }, "the photo waits")
        script.advance(seconds: 8)
        #expect(script.screen?.lock?.reason == .group("Family"))
    }

    @Test("should show the lock screen when the server already has today's photo")
    func serverSaysAlreadySent() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        let photo = Fixture.capture(&script)
        script.advance(seconds: 3)
        script.send(.uploadFailed(photo.id, .alreadySentToday))
        #expect(script.screen?.lock?.reason == .group("Family"))
    }

    @Test("should give the day back when the server refuses the photo for good")
    func rejected() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        let photo = Fixture.capture(&script)
        script.advance(seconds: 3)
        let actions = script.send(.uploadFailed(photo.id, .rejected("bucket not found")))
        #expect(actions.contains(.releaseGroupDay(Fixture.day, group: "Family")))
        #expect(script.screen?.problem == .uploadRejected("bucket not found"))
        script.press()
        #expect(script.screen?.ready?.groupPhotoAvailable == true)
    }

    @Test("should log a queued photo delivered later without leaving the lock screen")
    func lateDelivery() {
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var script = StationScript(settings: Fixture.settings(), snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
        let actions = script.send(.uploaded(PhotoID("old")))
        #expect(actions == [.log(.info, "queued photo old delivered")])
        #expect(script.screen?.lock != nil)
    }
}
