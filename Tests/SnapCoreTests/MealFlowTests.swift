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
        #expect(script.actions.contains(.analyse(photo, day: Fixture.day)))
        #expect(script.screen == .processing(ProcessingScreen(photo: photo.id, stage: .analysing)))

        script.send(.analysed(photo.id, Fixture.analysis))
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
        let discarded = script.press(.hold)
        #expect(discarded.contains(.discardMeal(photo.id)), "the job is closed, not left for review")
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
        #expect(retry.contains(.analyse(photo, day: Fixture.day)))
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

    @Test("should count an answer the page asked for (a correction) against today's analyses")
    func pageAnswersCount() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal, limit: 2), startingAt: "2026-03-10 12:00:00")
        script.send(.answeredForThePage(day: Fixture.day))
        #expect(try #require(script.screen?.ready).analysesLeft == 1)
        script.send(.answeredForThePage(day: Fixture.day))
        #expect(script.screen?.lock?.reason == .aiLimit, "the last one spent on the page locks meal mode")
        script.press()
        #expect(script.screen?.lock?.reason == .aiLimit, "and a press starts no countdown")
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

    @Test("should show a queued analysis's answer for review, never log it unseen, and save it for its own day")
    func reviewedLater() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        let yesterday = LocalDay(year: 2026, month: 3, day: 9)
        let review = MealReview(photo: Samples.photo("late"), day: yesterday, analysis: Fixture.analysis)
        script.send(.analysisAnswered(review))
        guard case .mealResult(let sheet) = script.screen else {
            Issue.record("expected the result sheet for review, got \(String(describing: script.screen))")
            return
        }
        #expect(sheet.photo.id == PhotoID("late"))
        let saved = script.press()
        #expect(saved.contains(.saveMeal(Meal(photo: review.photo, day: yesterday, analysis: Fixture.analysis))))
        let ready = try #require(script.screen?.ready)
        #expect(ready.totals == .zero, "yesterday's meal is not in today's totals")
        #expect(ready.analysesLeft == 9, "the request was answered today and counts today")
    }

    @Test("should wait with a review until the person is done, and show the answers one by one")
    func reviewsWait() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        let photo = Fixture.capture(&script)
        let first = MealReview(photo: Samples.photo("q1"), day: Fixture.day, analysis: Fixture.analysis)
        let second = MealReview(photo: Samples.photo("q2"), day: Fixture.day, analysis: Fixture.analysis)
        script.send(.analysisAnswered(first))
        script.send(.analysisAnswered(second))
        #expect(script.screen == .processing(ProcessingScreen(photo: photo.id, stage: .analysing)), "not interrupted")
        script.send(.analysed(photo.id, Fixture.analysis))
        script.press()
        if case .mealResult(let sheet) = script.screen { #expect(sheet.photo.id == PhotoID("q1")) }
        let discarded = script.press(.hold)
        #expect(discarded.contains(.discardMeal(PhotoID("q1"))))
        if case .mealResult(let sheet) = script.screen { #expect(sheet.photo.id == PhotoID("q2")) }
        script.advance(seconds: 20)
        #expect(script.screen?.ready?.analysesLeft == 7, "three answers today")
        #expect(script.screen?.ready?.mealThumbnails.count == 2, "the live one and the auto-saved second")
    }

    @Test("should show a result a restart cut off, from the store")
    func reviewAfterRestart() throws {
        let review = MealReview(photo: Samples.photo("cut"), day: Fixture.day, analysis: Fixture.analysis)
        let snapshot = StationSnapshot(latestDay: Fixture.day, aiUses: [Fixture.day: 1], reviews: [review])
        let script = StationScript(
            settings: Fixture.settings(mode: .meal), snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
        guard case .mealResult(let sheet) = script.screen else {
            Issue.record("the cut-off result is not shown again: \(String(describing: script.screen))")
            return
        }
        #expect(sheet.photo.id == PhotoID("cut"))
    }

    @Test("should count a refusal or an unreadable answer as a request answered, and a network failure not")
    func countsAnswers() throws {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        var photo = Fixture.capture(&script, id: "a")
        script.send(.analysisFailed(photo.id, .refused("no")))
        script.press(.hold)
        photo = Fixture.capture(&script, id: "b")
        script.send(.analysisFailed(photo.id, .malformedAnswer("x")))
        script.press(.hold)
        photo = Fixture.capture(&script, id: "c")
        script.send(.analysisFailed(photo.id, .serverError(status: 503)))
        script.press(.hold)
        #expect(script.screen?.ready?.analysesLeft == 8)
    }
}

@Suite("Macros")
struct MacrosTests {
    @Test("should saturate instead of trapping when a stored meal holds Int.max")
    func saturates() {
        let absurd = Macros(calories: .max, protein: .max, carbs: 1, fats: 1)
        let sum = absurd + Macros(calories: 650, protein: 24, carbs: 80, fats: 22)
        #expect(sum == Macros(calories: .max, protein: .max, carbs: 81, fats: 23))
        #expect(
            (Macros(calories: .min, protein: 0, carbs: 0, fats: 0) + Macros(calories: -1, protein: 0, carbs: 0, fats: 0))
                .calories == .min)
    }

    @Test("should show the ready screen when a stored meal of today holds Int.max (it crashed every start before)")
    func absurdStoredMeal() {
        let photo = Samples.photo("m1")
        let absurd = Meal(
            photo: photo, day: Fixture.day,
            analysis: MealAnalysis(
                title: "Bad answer", totals: Macros(calories: .max, protein: .max, carbs: .max, fats: .max), items: []))
        let snapshot = StationSnapshot(latestDay: Fixture.day, meals: [absurd, absurd])
        let script = StationScript(
            settings: Fixture.settings(mode: .meal), snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
        #expect(script.screen?.ready?.totals.calories == .max)
    }

    @Test("should have the shell look at the delayed queue when the owner asks the AI again")
    func askedAgain() {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        let actions = script.send(.analysisRetryAsked(PhotoID("m9")))
        #expect(actions.contains(.resumeAnalyses))
        #expect(script.screen?.ready != nil, "the station stays where it was")
    }
}
