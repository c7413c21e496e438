import Foundation
import SnapCore
import Testing

@testable import SnapWeb

@Suite("The page's backup progress, told to the station's screen")
struct BackupProgressTests {
    private func notes(_ station: WebTestStation) -> [BackupNote?] {
        station.link.events.compactMap { if case .backup(let note) = $0 { note } else { nil } }
    }

    @Test("should tell each new percent once, then the end")
    func tellsEachPercent() throws {
        let station = try WebTestStation()
        let progress = BackupProgress(station.link, after: .zero) { .making(percent: $0) }
        for fraction in [0.101, 0.105, 0.5, 0.5, 1.2] { progress.report(fraction) }
        progress.end()
        progress.end()
        #expect(notes(station) == [.making(percent: 10), .making(percent: 50), .making(percent: 100), nil])
    }

    @Test("should tell nothing of a backup done before its first second")
    func quietWhenQuick() throws {
        let station = try WebTestStation()
        let progress = BackupProgress(station.link, after: .seconds(60)) { .checking(percent: $0) }
        progress.report(0.5)
        progress.end()
        #expect(notes(station).isEmpty)
    }
}
