import Foundation
import SnapCore
import SnapStore
import Synchronization

/// Tells the station how far a backup being made or checked on the page has gone (`Event.backup`), for
/// its ready screen: only once the work has gone on for `after` (a small backup is done before anyone
/// looks), then each time its percent moves, and nil at its end.
final class BackupProgress: Sendable {
    private let link: any StationLink
    private let note: @Sendable (Int) -> BackupNote
    private let after: Duration
    private let started = ContinuousClock.now
    /// The percent last told; nil before the first and after the end.
    private let told = Mutex<Int?>(nil)

    init(_ link: any StationLink, after: Duration = .seconds(1), _ note: @escaping @Sendable (Int) -> BackupNote) {
        self.link = link
        self.after = after
        self.note = note
    }

    /// How far it is (0…1).
    func report(_ fraction: Double) {
        guard ContinuousClock.now - started >= after else { return }
        let percent = Int((min(1, max(0, fraction)) * 100).rounded(.down))
        let changed = told.withLock { told in
            guard told != percent else { return false }
            told = percent
            return true
        }
        if changed { link.send(.backup(note(percent))) }
    }

    /// It ended (made, restored, refused or stopped): the screen's note goes, if it was shown.
    func end() {
        let shown = told.withLock { told in
            defer { told = nil }
            return told != nil
        }
        if shown { link.send(.backup(nil)) }
    }
}

/// A backup's pieces as they go to the phone, their progress told as they go (`BackupProgress`), its end
/// told when the last has gone or the phone went away.
final class ReportedPieces: BodyPieces {
    private let pieces: BackupPieces
    private let progress: BackupProgress

    init(_ pieces: BackupPieces, _ progress: BackupProgress) {
        self.pieces = pieces
        self.progress = progress
    }

    deinit { progress.end() }

    func next() throws -> [UInt8]? {
        guard let piece = try pieces.next() else {
            progress.end()
            return nil
        }
        progress.report(pieces.fraction)
        return piece
    }
}
