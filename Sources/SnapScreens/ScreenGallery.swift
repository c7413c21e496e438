import Foundation
import SnapCore
import SnapText

/// One example of every screen, with sample data: what `snapstation screens` draws and the tests check.
public enum ScreenGallery {
    /// A meal as the AI answers it in `words`' language (the station asks it to answer in that language).
    public static func sampleAnalysis(_ words: Words = Words()) -> MealAnalysis {
        MealAnalysis(
            title: words("sample.title"),
            totals: Macros(calories: 650, protein: 24, carbs: 80, fats: 22),
            items: [
                MealItem(
                    name: words("sample.item.pasta"), grams: 200,
                    macros: Macros(calories: 320, protein: 11, carbs: 64, fats: 2), contains: [.gluten]),
                MealItem(
                    name: words("sample.item.sauce"), grams: 150,
                    macros: Macros(calories: 210, protein: 3, carbs: 15, fats: 11)),
                MealItem(
                    name: words("sample.item.cheese"), grams: 30,
                    macros: Macros(calories: 120, protein: 10, carbs: 1, fats: 9), contains: [.dairy, .lactose]),
            ])
    }

    /// Daily goals as a person tracking macros sets them.
    public static let sampleGoals = Macros(calories: 2000, protein: 120, carbs: 250, fats: 70)

    /// A week as a person tracking meals logs it: a day skipped, a day over the goal.
    public static func sampleWeek(ending today: LocalDay) -> WeekScreen {
        let kcal: [Int?] = [1850, 2240, nil, 1920, 1710, 2060, 1070]
        return WeekScreen(
            days: kcal.enumerated().map { index, calories in
                WeekScreen.Day(
                    day: today.adding(days: index - 6),
                    totals: calories.map { Macros(calories: $0, protein: $0 / 20, carbs: $0 / 9, fats: $0 / 30) })
            }, goals: sampleGoals)
    }

    /// Every screen, named as its PNG file is. `photo` is a processed photo whose files exist; `sticker`, a
    /// sticker PNG for the result sheet that shows one; the sample data (the meal, the group, its member)
    /// in `words`' language, as a station speaking it would show.
    public static func screens(photo: ProcessedPhoto, sticker: String? = nil, words: Words = Words())
        -> [(name: String, screen: Screen)]
    {
        let family = words("sample.group")
        let sampleAnalysis = sampleAnalysis(words)
        let ready = ReadyScreen(
            mode: .meal, groupName: family,
            totals: sampleAnalysis.totals + Macros(calories: 420, protein: 30, carbs: 35, fats: 15),
            mealThumbnails: [photo.thumbnailPath, photo.thumbnailPath], groupPhotoAvailable: true, analysesLeft: 8,
            missingDevices: [], goals: sampleGoals)
        // A new station: no meal yet, no phone paired.
        var firstStart = ReadyScreen(
            mode: .meal, groupName: nil, totals: .zero, mealThumbnails: [], groupPhotoAvailable: true,
            analysesLeft: 10, missingDevices: [])
        firstStart.pairingHint = true
        var groupReady = ready
        groupReady.mode = .group
        var degraded = groupReady
        degraded.missingDevices = [.buttons, .flash]
        var installing = groupReady
        installing.update = .installing(version: "2.1.0", percent: 42)
        var restarting = degraded
        restarting.update = .restarting(version: "2.1.0")
        var rolledBack = groupReady
        rolledBack.update = .rolledBack(tried: "2.1.0", running: "2.0.3")
        rolledBack.flashOff = true  // the chip stops short of the icon beside it
        // A backup checked on the page while an update's news is shown too: the two chips stacked.
        var backingUp = ready
        backingUp.backup = .making(percent: 35)
        var checkingBackup = restarting
        checkingBackup.backup = .checking(percent: 60)
        var twoCameras = groupReady
        (twoCameras.cameras, twoCameras.camera, twoCameras.flashOff) = (["CSI camera", "USB camera"], 1, true)
        let menu = MenuScreen(
            entries: [.camera("USB camera"), .flash(on: false)], selected: 0)
        let result = MealResultScreen(
            photo: photo, analysis: sampleAnalysis, clashes: [[.glutenFree], [], [.lactoseFree, .vegan]], autoSaveIn: 20
        )
        var dim = photo
        dim.quality = .tooDark
        var blurred = photo
        blurred.quality = .tooBlurred
        var stickerResult = result
        stickerResult.photo.stickerPath = sticker
        // A household of more than one: the second person picked with the mode button.
        let samplePerson = Person(id: PersonID(rawValue: 2), name: words("sample.person"), colour: .blue)
        var sharing = samplePerson
        sharing.aiShare = 3
        var personResult = stickerResult
        personResult.person = samplePerson
        let shared = SharedPhoto(
            id: PhotoID("shared"), group: family, member: words("sample.member"), takenAt: photo.takenAt,
            expiresAt: photo.takenAt + 48 * 3600, path: photo.photoPath)
        let slide = Slide(photo: shared, age: .seconds(3 * 3600 + 120), index: 1, count: 3)
        let pairing = Pairing(
            url: "http://kitchen.local:8080/pair", code: "48291307", expiresAt: photo.takenAt + 300)
        var selfSigned = pairing
        selfSigned.url = "https://kitchen.local:8080/pair"
        selfSigned.fallback = "https://192.168.1.20:8080/pair"
        selfSigned.fingerprint =
            "3F:A2:19:C4:5B:0E:77:D1:02:9B:6E:41:AA:C3:5D:10:E8:72:4F:90:1B:66:C2:0D:93:5A:7E:18:F4:2C:B0:61"
        return [
            ("00-first-start", .ready(firstStart)),
            ("01-ready-meal", .ready(ready)),
            ("02-ready-group", .ready(groupReady)),
            ("03-ready-missing-devices", .ready(degraded)),
            ("03b-ready-update-installing", .ready(installing)),
            ("03c-ready-update-restarting", .ready(restarting)),
            ("03d-ready-update-rolled-back", .ready(rolledBack)),
            ("03e-ready-backup-making", .ready(backingUp)),
            ("03f-ready-backup-checking", .ready(checkingBackup)),
            ("04-countdown", .countdown(CountdownScreen(secondsLeft: 3, mode: .group))),
            ("04b-countdown-person", .countdown(CountdownScreen(secondsLeft: 2, mode: .meal, person: samplePerson))),
            ("05-capturing", .capturing(mode: .group)),
            ("06-processing", .processing(ProcessingScreen(photo: photo.id, stage: .processing))),
            ("07-analysing", .processing(ProcessingScreen(photo: photo.id, stage: .analysing))),
            ("07b-retake-dark", .retake(RetakeScreen(photo: dim, mode: .meal))),
            ("07c-retake-blurred", .retake(RetakeScreen(photo: blurred, mode: .group))),
            ("08-meal-result", .mealResult(result)),
            ("08b-meal-result-sticker", .mealResult(stickerResult)),
            ("08c-meal-result-person", .mealResult(personResult)),
            ("09-group-review", .groupReview(GroupReviewScreen(photo: photo, group: family, secondsLeft: 3))),
            ("10-uploading", .uploading(UploadingScreen(photo: photo, group: family, progress: 0.42))),
            ("11-sent", .sent(group: family)),
            (
                "12-group-lock",
                .locked(LockScreen(reason: .group(family), limit: 10, remaining: .seconds(14 * 3600 + 59 * 60 + 51)))
            ),
            (
                "13-ai-limit",
                .locked(
                    LockScreen(
                        reason: .aiLimit, limit: 10, remaining: .seconds(5 * 3600 + 12 * 60 + 4),
                        day: DayResult(totals: ready.totals, goals: sampleGoals)))
            ),
            ("14-lock-clock-unset", .locked(LockScreen(reason: .group(family), limit: 10, remaining: nil))),
            (
                "15-error-camera-missing",
                .problem(ProblemScreen(kind: .cameraMissing("no camera found by libcamera"), photo: nil))
            ),
            (
                "16-error-capture-failed",
                .problem(ProblemScreen(kind: .captureFailed("the camera did not deliver a frame in 5 s"), photo: nil))
            ),
            (
                "17-error-processing",
                .problem(
                    ProblemScreen(kind: .processingFailed("tjDecompress2: Premature end of JPEG file"), photo: nil))
            ),
            ("18-error-ai-not-configured", .problem(ProblemScreen(kind: .aiFailed(.notConfigured), photo: nil))),
            (
                "19-error-ai-failed",
                .problem(ProblemScreen(kind: .aiFailed(.rateLimited(retryAfter: .seconds(20))), photo: photo))
            ),
            ("20-error-network-down", .problem(ProblemScreen(kind: .networkDown(group: family), photo: photo))),
            (
                "20c-error-group-sign-in",
                .problem(
                    ProblemScreen(
                        kind: .signInFailed(
                            // The reason is the sign-in's own, for the installer: in English, as the log has it.
                            group: family, reason: "wrong email or password (group.email, group.key_source)"),
                        photo: photo))
            ),
            ("20b-analysis-queued", .problem(ProblemScreen(kind: .analysisQueued, photo: photo))),
            (
                "21-error-upload-rejected",
                .problem(ProblemScreen(kind: .uploadRejected("the server refused the photo (HTTP 403)"), photo: photo))
            ),
            ("22-error-storage-full", .problem(ProblemScreen(kind: .storageFull, photo: nil))),
            ("22b-error-share-used", .problem(ProblemScreen(kind: .shareUsed(sharing), photo: nil))),
            (
                "23-error-destination-full",
                .problem(ProblemScreen(kind: .destinationFull(group: family), photo: photo))
            ),
            (
                "24-group-lock-slideshow",
                .locked(
                    LockScreen(
                        reason: .group(family), limit: 10, remaining: .seconds(9 * 3600 + 4 * 60 + 12), slide: slide))
            ),
            ("25-idle-slideshow", .idle(IdleScreen(mode: .group, group: family, slide: slide, clock: "14:05"))),
            ("26-idle-clock", .idle(IdleScreen(mode: .meal, group: nil, slide: nil, clock: "23:41"))),
            ("27-pairing", .pairing(PairingScreen(pairing: pairing, remaining: .seconds(4 * 60 + 37)))),
            (
                "27b-pairing-paired",
                .pairing(PairingScreen(pairing: pairing, remaining: .seconds(251), note: .paired("Firefox on Android")))
            ),
            ("27c-pairing-self-signed", .pairing(PairingScreen(pairing: selfSigned, remaining: .seconds(4 * 60 + 37)))),
            ("28-ready-two-cameras", .ready(twoCameras)),
            ("29-menu", .menu(menu)),
            ("29b-week", .week(sampleWeek(ending: LocalDay(containing: photo.takenAt, in: .current)))),
            (
                "29c-reset-confirm",
                .question(QuestionScreen(question: .reset, secondsLeft: StationMachine.questionSeconds))
            ),
            ("29d-reset-erasing", .question(QuestionScreen(question: .reset, secondsLeft: nil))),
            (
                "29e-restore-confirm",
                .question(
                    QuestionScreen(
                        question: .restore(version: "0.9.0", created: LocalDay(year: 2026, month: 11, day: 30)),
                        secondsLeft: StationMachine.questionSeconds))
            ),
            (
                "29f-restoring",
                .question(QuestionScreen(question: .restore(version: "0.9.0", created: nil), secondsLeft: nil))
            ),
            (
                "29c-week-empty",
                .week(
                    WeekScreen(
                        days: (0..<7).map {
                            WeekScreen.Day(
                                day: LocalDay(containing: photo.takenAt, in: .current).adding(days: $0 - 6), totals: nil
                            )
                        }, goals: .zero))
            ),
        ] + jarScreens(ready: ready, photo: photo, sticker: sticker, words: words)
    }

    /// The jar: empty, with a few stickers, with 60, and with one sticker's details showing. Half of the
    /// stickers are the cut-out `sticker`, half a round cut of the photo's thumbnail.
    public static func jarScreens(ready: ReadyScreen, photo: ProcessedPhoto, sticker: String?, words: Words = Words())
        -> [(name: String, screen: Screen)]
    {
        let titles = [words("sample.title")] + (1...9).map { words("sample.jar.\($0)") }
        func stickers(_ count: Int) -> [JarSticker] {
            (0..<count).map { index in
                JarSticker(
                    id: PhotoID("jar\(index)"), stickerPath: index % 2 == 0 ? sticker : nil,
                    thumbnailPath: photo.thumbnailPath, title: titles[index % titles.count],
                    totals: Macros(
                        calories: 180 + index * 37 % 600, protein: 5 + index % 30, carbs: 20 + index % 60,
                        fats: 3 + index % 25),
                    funFact: index % 3 == 2
                        ? nil : words("sample.fun_fact"))
            }
        }
        var empty = ready
        empty.totals = .zero
        empty.jar = JarContents(stickers: [])
        var few = ready
        few.jar = JarContents(stickers: stickers(5))
        var full = ready
        full.jar = JarContents(stickers: stickers(60), days: 7)
        var detail = ready
        detail.jar = JarContents(stickers: stickers(5), highlighted: 0)
        (detail.cameras, detail.camera, detail.flashOff) = (["CSI camera", "USB camera"], 0, true)
        // A household of two: each sticker marked with its person's colour, the card the picked person's.
        let people = [
            Person(id: .first, name: words("sample.member"), colour: .orange),
            Person(id: PersonID(rawValue: 2), name: words("sample.person"), colour: .blue),
        ]
        var household = ready
        household.person = people[1]
        household.jar = JarContents(
            stickers: stickers(6).enumerated().map { index, sticker in
                var marked = sticker
                marked.person = people[index % 2]
                return marked
            })
        var householdDetail = household
        householdDetail.jar?.highlighted = 1
        return [
            ("28-jar-empty", .ready(empty)), ("28b-jar-few", .ready(few)), ("28c-jar-60-week", .ready(full)),
            ("28d-jar-detail", .ready(detail)), ("28e-jar-household", .ready(household)),
            ("28f-jar-household-detail", .ready(householdDetail)),
        ]
    }
}
