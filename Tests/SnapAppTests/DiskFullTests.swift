import Foundation
import SnapFiles
import SnapImaging
import SnapStore
import SnapTestSupport
import Testing

/// The state folder on a small tmpfs that fills up for real: the station says "storage full", keeps
/// what it had, and goes on once there is space again.
@Suite(
    "Disk full", .serialized,
    .enabled(if: SmallDisk.unavailableReason == nil, Comment(rawValue: SmallDisk.unavailableReason ?? "")),
    .startsProcesses)
struct DiskFullTests {
    let folder = TemporaryDirectory("diskfull")

    @Test("should say storage full on a full disk, lose nothing it had, and recover when space returns")
    func fullDisk() async throws {
        let disk = try SmallDisk(kilobytes: 6144)
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "group": ["name = [\"A\", \"B\"]", "review_seconds = 1"],
                "display": ["idle_seconds = 0", "frames_dir = \"\(folder.path)/frames\""],
                "storage": ["min_free_mb = 0"],
            ])
        let log = folder.path + "/station.log"
        let station = try StationProcess(
            ["run", "--config", config, "--state", disk.path], logPath: log, typing: true)
        let follower = LogFollower(path: log)
        #expect(await follower.waitFor("screen: ready"))
        station.type("press")
        #expect(await follower.waitFor("screen: group-lock"), "A's photo of the day")
        let before = try StationStore(directory: disk.path).audit()
        #expect(before.delivered.count == 1)

        // The disk fills up (a log, other photos); the next photo cannot be written.
        let filler = disk.fill(leaving: 16 * 1024)
        station.type("mode")  // to group B
        #expect(await follower.waitFor("screen: ready"))
        station.type("press")
        let full = await follower.waitFor("screen: error-storage-full")
        #expect(full, "storage full in words:\n\(station.output.suffix(3000))")
        let during = try StationStore(directory: disk.path).audit()
        #expect(during.integrity == "ok")
        #expect(during.missingFiles.isEmpty && during.delivered == before.delivered, "nothing it had is lost")
        for path in before.namedFiles where path.hasSuffix(".jpg") {
            #expect((try? JPEG.decode(FileBytes.readIfPresent(path) ?? [])) != nil, "\(path) is whole")
        }

        // Space returns: the same press goes through.
        unlink(filler)
        station.type("press")  // leaves the error screen
        #expect(await follower.waitFor("screen: ready"))
        station.type("press")
        #expect(await follower.waitFor("screen: group-lock"), "B's photo once there is space")
        #expect(await station.stop() == 0)
        let after = try StationStore(directory: disk.path).audit()
        #expect(after.delivered.count == 2 && after.integrity == "ok" && after.temporaryFiles.isEmpty)
    }
}
