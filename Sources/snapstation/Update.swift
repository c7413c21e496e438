import ArgumentParser
import Foundation
import Logging
import SnapConfig
import SnapCore
import SnapStore
import SnapUpdates

extension SnapStation {
    /// `snapstation update status|install`: the station's two system slots over SSH, as the page shows them.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The station's system update: its slots, and installing a signed bundle (RAUC).",
            subcommands: [Status.self, Install.self])

        /// The updater the running station uses, over the config's `update.rauc` and state folder.
        static func updater(_ config: StationConfig, quiet: Bool) -> SlotUpdater {
            let logger =
                quiet
                ? Logger(label: "snapstation", factory: { _ in SwiftLogNoOpLogHandler() })
                : Logger(label: "snapstation")
            // The backup before an install, made beside the running station (its store opened without sweeping).
            let state = config.storage.dir
            return SlotUpdater(
                rauc: config.update.rauc, folder: state + "/updates", logger: logger,
                backup: {
                    let path = try StationStore(directory: state, sweep: false).keepBackup()
                    giveBack(state, ["backup", "backup/" + (path as NSString).lastPathComponent] + journal)
                    FileHandle.standardOutput.write(Data("a backup before the install: \(path)\n".utf8))
                    return path
                })
        }

        /// The store's journal, which opening the store makes when the station is stopped.
        static let journal = ["snapstation.sqlite-wal", "snapstation.sqlite-shm", "photos"]

        /// Gives what root made in the state folder to the folder's owner (the station's user): run as root
        /// over SSH, the install's backup must stay the station's to write, list and delete.
        static func giveBack(_ state: String, _ parts: [String]) {
            var folder = stat()
            guard geteuid() == 0, stat(state, &folder) == 0, folder.st_uid != 0 else { return }
            for part in parts {
                var made = stat()
                let path = state + "/" + part
                if stat(path, &made) == 0, made.st_uid == 0 { _ = chown(path, folder.st_uid, folder.st_gid) }
            }
        }

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print the running version and slot, the other slot, and an update waiting for its restart.")

            @OptionGroup var options: ConfigOption
            @Flag(help: "Print JSON (for scripts and the system test).") var json = false

            func run() async throws {
                let config = try options.load()
                let status = await Update.updater(config, quiet: true).status()
                if json {
                    // The outcome as the log says it, for a script to read as text.
                    var object =
                        try JSONSerialization.jsonObject(with: JSONEncoder().encode(status)) as? [String: Any] ?? [:]
                    object["outcome"] = status.outcome.map(String.init(describing:))
                    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    print(String(decoding: data, as: UTF8.self))
                    return
                }
                guard status.managed else {
                    print("running \(status.version); updates are not set up here (\(status.problem ?? "no slots"))")
                    return
                }
                print(
                    "running \(status.version) from slot \(status.booted ?? "?")"
                        + (status.confirmed ? ", confirmed" : ", on trial (not marked good yet)"))
                for slot in status.slots {
                    print(
                        "  slot \(slot.bootname) (\(slot.name)): \(slot.version ?? "the image's own"), \(slot.state), "
                            + (slot.bootGood ? "good" : "not good"))
                }
                if let pending = status.pending {
                    print(
                        "\(pending.version) is installed in slot \(pending.slot): the station restarts into it when idle"
                    )
                }
                if let outcome = status.outcome { print("last update: \(outcome)") }
            }
        }

        struct Install: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Install a signed bundle (.raucb) into the slot not running.",
                discussion: """
                    The bundle is checked against the image's keyring first; an unsigned, wrongly signed or \
                    tampered bundle is refused and nothing is written. The running station restarts into the \
                    new slot at its next idle moment, and marks it good once it has run update.confirm_seconds \
                    there; if it never does, the old slot comes back by itself. A bundle older than the running \
                    system is refused before anything is written, unless --allow-downgrade. Exit 1 when it is \
                    not installed.
                    """)

            @Argument(help: "The bundle (.raucb).") var bundle: String
            @Flag(help: "Install the bundle even if it holds a version older than the running system's.")
            var allowDowngrade = false
            @OptionGroup var options: ConfigOption

            func run() async throws {
                let config = try options.load()
                let path = URL(fileURLWithPath: bundle).standardizedFileURL.path
                do throws(UpdateFailure) {
                    let version = try await Update.updater(config, quiet: true).install(
                        bundle: path, allowDowngrade: allowDowngrade
                    ) { _, percent, step in
                        // Each step as it comes (unbuffered), into a pipe or a log as on a terminal.
                        FileHandle.standardOutput.write(Data("\(String(percent).leftPadded(to: 3))% \(step)\n".utf8))
                    }
                    let status = await Update.updater(config, quiet: true).status()
                    print(
                        "installed \(version) into slot \(status.pending?.slot ?? "?"); "
                            + "the station restarts into it at its next idle moment "
                            + "(within seconds when idle, which ends this SSH session)")
                } catch {
                    var said = "snapstation: \(bundle) not installed: \(error)\n"
                    if case .older(let older, _) = error {
                        said +=
                            "to go back to \(older) all the same: "
                            + "snapstation update install --allow-downgrade \(bundle)\n"
                    }
                    FileHandle.standardError.write(Data(said.utf8))
                    throw ExitCode(1)
                }
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
