import Foundation
import SnapCore
import SnapStore
import Testing

@testable import SnapWeb

@Suite("The owner's page: Today's rows")
struct TodayPageTests {
    @Test("should show a meal's thumbnail while its photo is kept, and say when retention deleted it")
    func photoKeptOrDeleted() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        try station.meal("kept", title: "Soup & <bread>")
        let kept = await station.get("/", cookie: browser.cookie).text
        #expect(kept.contains("<img src=\"/photo/kept.thumb.jpg\""), "\(kept)")
        #expect(kept.contains("<b>Soup &amp; &lt;bread&gt;</b>"), "the title escaped")
        let removed = try station.store.purgePhotos(takenBefore: station.now.addingTimeInterval(3600))
        #expect(removed == 1)
        let deleted = await station.get("/", cookie: browser.cookie).text
        #expect(!deleted.contains("/photo/kept.thumb.jpg") && deleted.contains("class=\"nophoto\""), "\(deleted)")
        #expect(deleted.contains("<b>Soup &amp; &lt;bread&gt;</b>"), "the meal stays")
    }
}
