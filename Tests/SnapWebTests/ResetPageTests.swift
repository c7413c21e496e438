import Foundation
import SnapCore
import SnapTestSupport
import Testing

@testable import SnapWeb

@Suite("The owner's page: a factory reset asked here and confirmed at the station")
struct ResetPageTests {
    private let ready = Screen.ready(
        ReadyScreen(
            mode: .meal, groupName: nil, totals: .zero, mealThumbnails: [], groupPhotoAvailable: true,
            analysesLeft: 10, missingDevices: []))

    @Test("should say what goes and what stays, offer a backup first, and be linked from the backup page")
    func explains() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair()
        let page = await station.get("/reset", cookie: owner.cookie)
        #expect(page.status == 200)
        for said in [
            "deletes everything the station holds", "keeps its config file", "href=\"/backup\"",
            "action=\"/reset\"",
        ] {
            #expect(page.text.contains(said), "\(said)")
        }
        #expect(!page.text.contains("The station is asking now"))
        let backup = await station.get("/backup", cookie: owner.cookie)
        #expect(backup.text.contains("href=\"/reset\""))
        #expect(await station.get("/reset").status != 200, "not for a browser that is not paired")
    }

    @Test("should ask the station, and say to hold its button while it asks, or that it is busy")
    func asksTheStation() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair()
        station.link.show(.countdown(CountdownScreen(secondsLeft: 2, mode: .meal)))
        let busy = await station.post("/reset", [("csrf", owner.csrf)], cookie: owner.cookie)
        #expect(busy.status == 409 && busy.text.contains("The station is busy"), "\(busy.text)")
        #expect(station.link.events.filter { $0 == .resetAsked }.count == 1)

        // The station's loop shows its question when it is calm (StationMachine.resetAsked).
        station.link.show(ready)
        station.link.onEvent.withLock { handler in
            handler = { [link = station.link] event in
                if event == .resetAsked {
                    link.show(.question(QuestionScreen(question: .reset, secondsLeft: StationMachine.questionSeconds)))
                }
            }
        }
        let asked = await station.post("/reset", [("csrf", owner.csrf)], cookie: owner.cookie)
        #expect(asked.status == 200 && asked.text.contains("Hold its button for 5 seconds"), "\(asked.text)")
        #expect(asked.text.contains("http-equiv=\"refresh\""), "the page follows the station")
        station.link.show(.question(QuestionScreen(question: .reset, secondsLeft: nil)))
        let erasing = await station.get("/reset", cookie: owner.cookie)
        #expect(erasing.text.contains("The station is erasing itself"))

        let forged = await station.post("/reset", [("csrf", "not-the-token")], cookie: owner.cookie)
        #expect(forged.status == 403)
        #expect(station.link.events.filter { $0 == .resetAsked }.count == 2, "a forged form asks nothing")
    }
}
