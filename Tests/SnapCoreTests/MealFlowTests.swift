import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: meal mode")
struct MealFlowTests {
    private func analysing() -> (StationScript, ProcessedPhoto) {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        let photo = Fixture.capture(&script)
        return (script, photo)
    }

    @Test("should analyse the processed photo and show the result sheet with clashing items flagged")
    func analyseAndShow() throws {
        var script = StationScript(
            settings: Fixture.settings(mode: .meal, preferences: [.glutenFree, .vegan]),
            startingAt: "2026-03-10 12:00:00")
        let photo = Fixture.capture(&script)
        #expect(script.actions.contains(.analyse(photo)))
        #expect(script.screen == .processing(ProcessingScreen(photo: photo.id, stage: .analysing)))

        let result = script.send(.analysed(photo.id, Fixture.analysis))
        #expect(result.contains(.recordAIUse(Fixture.day)))
        guard case .mealResult(let sheet) = script.screen else {
            Issue.record("expected the result sheet, got \(String(describing: script.screen))")
            return
        }
        #expect(sheet.clashes == [[.glutenFree], [.vegan], []])
        #expect(sheet.autoSaveIn == 20)
    }

    @Test("should save on a press and show the meal in today's totals and thumbnails")
    func pressSaves() throws {
        var (script, photo) = analysing()
        script.send(.analysed(photo.id, Fixture.analysis))
        let saved = script.press()
        #expect(saved.contains(.saveMeal(Meal(photo: photo, day: Fixture.day, analysis: Fixture.analysis))))
        let ready = try #require(script.screen?.ready)
        #expect(ready.totals == Fixture.analysis.totals)
        #expect(ready.mealThumbnails == [photo.thumbnailPath])
        #expect(ready.analysesLeft == 9)
    }

    @Test("should discard on a hold: nothing saved, the analysis still counted")
    func holdDiscards() throws {
        var (script, photo) = analysing()
        script.send(.analysed(photo.id, Fixture.analysis))
        script.press(.hold)
        #expect(!script.actions.contains { if case .saveMeal = $0 { true } else { false } })
        let ready = try #require(script.screen?.ready)
        #expect(ready.totals == .zero)
        #expect(ready.analysesLeft == 9)
    }

    @Test("should save by itself when the result sheet's count runs out")
    func autoSave() {
        var (script, photo) = analysing()
        script.send(.analysed(photo.id, Fixture.analysis))
        script.advance(seconds: 19)
        #expect(!script.actions.contains { if case .saveMeal = $0 { true } else { false } })
        script.advance(seconds: 1)
        #expect(script.actions.contains { if case .saveMeal = $0 { true } else { false } })
        #expect(script.screen?.ready?.totals == Fixture.analysis.totals)
    }

    @Test("should show an AI failure with 'press to retry', and retry the same photo")
    func retryAfterFailure() {
        var (script, photo) = analysing()
        script.send(.analysisFailed(photo.id, .rateLimited(retryAfter: .seconds(20))))
        #expect(script.screen?.problem == .aiFailed(.rateLimited(retryAfter: .seconds(20))))
        let retry = script.press()
        #expect(retry.contains(.analyse(photo)))
        #expect(script.screen == .processing(ProcessingScreen(photo: photo.id, stage: .analysing)))
    }

    @Test("should cancel the analysis on a long press")
    func holdCancelsAnalysis() {
        var (script, photo) = analysing()
        let cancel = script.press(.hold)
        #expect(cancel.contains(.cancelAnalysis(photo.id)))
        #expect(script.screen?.ready != nil)
        // A late answer for the cancelled photo changes nothing.
        #expect(script.send(.analysed(photo.id, Fixture.analysis)).isEmpty)
    }

    @Test("should cancel processing on a long press and ignore its late result")
    func holdCancelsProcessing() {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 3)
        script.send(.captured(PhotoID("p1")))
        script.press(.hold)
        #expect(script.screen?.ready != nil)
        #expect(script.send(.processed(Samples.photo("p1"))).isEmpty)
    }

    @Test("should say 'AI service not configured' instead of counting down when there is no key")
    func notConfigured() {
        var script = StationScript(
            settings: Fixture.settings(mode: .meal, ai: false), startingAt: "2026-03-10 12:00:00")
        let actions = script.press()
        #expect(!actions.contains(.capture))
        #expect(script.screen?.problem == .aiFailed(.notConfigured))
        script.press()
        #expect(script.screen?.ready?.mode == .meal)
    }

    @Test("should switch to group mode on a hold, as the 'not configured' screen says")
    func notConfiguredHoldSwitches() {
        var script = StationScript(
            settings: Fixture.settings(mode: .meal, ai: false), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.press(.hold)
        #expect(script.screen?.ready?.mode == .group)
    }

    @Test("should lock meal mode when today's analyses are used up, until midnight")
    func aiLimit() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal, limit: 2), startingAt: "2026-03-10 22:00:00")
        for id in ["a", "b"] {
            let photo = Fixture.capture(&script, id: id)
            script.send(.analysed(photo.id, Fixture.analysis))
            script.press()
        }
        let lock = try #require(script.screen?.lock)
        #expect(lock.reason == .aiLimit)
        #expect(lock.limit == 2)
        script.advance(seconds: 2 * 3600)
        let ready = try #require(script.screen?.ready)
        #expect(ready.analysesLeft == 2)
        #expect(ready.totals == .zero, "yesterday's meals leave today's totals")
    }

    @Test("should start today's totals again at midnight while the ready screen shows")
    func midnightClearsTotals() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 23:00:00")
        let photo = Fixture.capture(&script)
        script.send(.analysed(photo.id, Fixture.analysis))
        script.press()
        #expect(script.screen?.ready?.totals == Fixture.analysis.totals)
        script.advance(seconds: 3600)
        #expect(script.screen?.ready?.totals == .zero)
        #expect(script.screen?.ready?.mealThumbnails == [])
    }
}

@Suite("StationMachine: meal mode offline")
struct MealOfflineTests {
    @Test("should keep an analysis that cannot reach the service as a job, and say so")
    func queuedWhenOffline() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        let photo = Fixture.capture(&script)
        let actions = script.send(.analysisFailed(photo.id, .offline))
        #expect(actions.contains(.queueAnalysis(photo, day: Fixture.day)))
        #expect(script.screen?.problem == .analysisQueued)
        script.advance(seconds: 8)
        #expect(script.screen?.ready?.analysesLeft == 10, "not counted until it is analysed")
    }

    @Test("should log a queued meal when it arrives, in today's totals and count")
    func loggedLater() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        let meal = Meal(photo: Samples.photo("late"), day: Fixture.day, analysis: Fixture.analysis)
        script.send(.mealLogged(meal))
        let ready = try #require(script.screen?.ready)
        #expect(ready.totals == Fixture.analysis.totals)
        #expect(ready.analysesLeft == 9)
    }
}
