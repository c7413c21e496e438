import Foundation
import SnapFiles

/// RAUC's command-line client (`rauc`, Debian bookworm's 1.8), which asks the RAUC service over D-Bus.
/// Each call starts the client and waits for it: a blocking call, made only on `SlotUpdater`'s thread or
/// from the command line. What is read follows rauc 1.8's `src/main.c`: `status --detailed
/// --output-format=json` (`r_status_formatter_json`), `info --output-format=json` (`info_formatter_json`),
/// and `install`'s progress lines, "%3d%% MESSAGE" (`print_progress_callback`).
public struct RAUC: Sendable {
    /// A call the client failed: its words (stderr), or why it could not be started.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// `rauc status`: the booted slot's bootname, the primary slot's name, and each slot.
    public struct Status: Sendable, Hashable {
        public struct Slot: Sendable, Hashable {
            public var name: String
            public var bootname: String?
            public var state: String
            public var bootGood: Bool
            /// `slot_status.bundle.version`: the version of the bundle last installed into the slot.
            public var version: String?
        }
        public var compatible: String
        public var booted: String?
        /// RAUC's slot name (`boot_primary`), not its bootname; nil when no slot is bootable yet.
        public var primary: String?
        public var slots: [Slot]

        /// The booted slot, by its bootname.
        public var bootedSlot: Slot? { slots.first { $0.bootname != nil && $0.bootname == booted } }
        public var primarySlot: Slot? { slots.first { $0.name == primary } }
    }

    /// `rauc info`: what a bundle says it is, once its signature checked out against the keyring.
    public struct BundleInfo: Sendable, Hashable {
        public var compatible: String
        public var version: String
    }

    public let path: String

    public init(path: String) { self.path = path }

    public func status() throws(Failure) -> Status {
        let output = try run(["status", "--detailed", "--output-format=json"])
        return try Self.status(json: output)
    }

    public func info(_ bundle: String) throws(Failure) -> BundleInfo {
        let output = try run(["info", "--output-format=json", Self.operand(bundle)])
        guard let json = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let compatible = json["compatible"] as? String, let version = json["version"] as? String
        else { throw Failure(message: "rauc info answered no bundle's compatible and version") }
        return BundleInfo(compatible: compatible, version: version)
    }

    /// A bundle's path as the client's operand: one that starts with `-` (a relative storage folder named
    /// so) would be read as an option; `./` before it keeps it a path.
    static func operand(_ bundle: String) -> String {
        bundle.hasPrefix("-") ? "./" + bundle : bundle
    }

    /// `rauc install BUNDLE`, its progress given as it comes; `stopper` ends the client early (the station
    /// is stopping).
    public func install(_ bundle: String, stopper: Stopper? = nil, progress: (Int, String) -> Void) throws(Failure) {
        _ = try run(["install", Self.operand(bundle)], stopper: stopper) { line in
            if let step = Self.progress(line) { progress(step.percent, step.message) }
        }
    }

    /// Ends a client call from another thread: SIGTERM to the `rauc` client, which then returns. The RAUC
    /// service goes on with, or abandons, what the client asked of it on its own.
    public final class Stopper: Sendable {
        private let state = Lock<(client: ChildProcess?, stopped: Bool)>((nil, false))

        public init() {}

        public func stop() {
            let client = state.withLock { state -> ChildProcess? in
                state.stopped = true
                return state.client
            }
            client?.terminate()
        }

        /// The client just started: ended at once when `stop()` came first.
        func started(_ client: ChildProcess) {
            let stopped = state.withLock { state -> Bool in
                state.client = client
                return state.stopped
            }
            if stopped { client.terminate() }
        }

        /// The client has ended: nothing is left to stop.
        func ended() { state.withLock { $0.client = nil } }

        var stopped: Bool { state.withLock { $0.stopped } }
    }

    /// `rauc status mark-good`: the booted slot, which the bootloader then keeps.
    public func markGood() throws(Failure) {
        _ = try run(["status", "mark-good"])
    }

    /// `rauc status mark-active other`: the slot not booted made good and first (GRUB's backend,
    /// `r_grub_set_primary` in rauc's src/bootloaders/grub.c: its _OK=1, _TRY=0, ORDER with it first).
    public func markActiveOther() throws(Failure) {
        _ = try run(["status", "mark-active", "other"])
    }

    /// `rauc status mark-bad other`: the slot not booted, which the bootloader then passes over.
    public func markBad(other: Bool) throws(Failure) {
        _ = try run(["status", "mark-bad", other ? "other" : "booted"])
    }

    /// "%3d%% MESSAGE" as `print_progress_callback` writes it: " 20% Checking bundle".
    static func progress(_ line: String) -> (percent: Int, message: String)? {
        let trimmed = line.drop { $0 == " " }
        guard let sign = trimmed.firstIndex(of: "%"), let percent = Int(trimmed[..<sign]), (0...100).contains(percent)
        else { return nil }
        return (percent, trimmed[trimmed.index(after: sign)...].trimmingCharacters(in: .whitespaces))
    }

    /// `r_status_formatter_json`: {"compatible", "variant", "booted", "boot_primary", "slots": [{NAME: {...,
    /// "bootname", "state", "boot_status": "good"|"bad", "slot_status": {"bundle": {"version"}}}}]}.
    static func status(json text: String) throws(Failure) -> Status {
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let entries = json["slots"] as? [[String: Any]]
        else { throw Failure(message: "rauc status answered no slots") }
        let slots = entries.flatMap { entry in
            entry.compactMap { name, value -> Status.Slot? in
                guard let slot = value as? [String: Any] else { return nil }
                let bundle = (slot["slot_status"] as? [String: Any])?["bundle"] as? [String: Any]
                return Status.Slot(
                    name: name, bootname: slot["bootname"] as? String, state: slot["state"] as? String ?? "",
                    bootGood: slot["boot_status"] as? String == "good", version: bundle?["version"] as? String)
            }
        }
        return Status(
            compatible: json["compatible"] as? String ?? "", booted: json["booted"] as? String,
            primary: json["boot_primary"] as? String, slots: slots.sorted { $0.name < $1.name })
    }

    /// Why a call failed, in RAUC's words: an install through the service says its reason on stdout as
    /// "LastError: REASON" (`on_installer_changed` in rauc 1.8's src/main.c) and only "Installing `X`
    /// failed" on stderr; a call the client makes itself says it on stderr, where the reason may come a
    /// line before that last line. Its informational "rauc-Message: TIME: …" lines ("Reading bundle: …")
    /// are left out while anything else is said. Every other line, in order; nil when there is none.
    static func failure(output: Data, errors: Data) -> String? {
        let lastErrors = String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.range(of: "LastError: ").map { line[$0.upperBound...].trimmingCharacters(in: .whitespaces) }
        }
        let said = String(decoding: errors, as: UTF8.self).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let reasons = said.filter { !$0.hasPrefix("rauc-Message:") }
        let words = (lastErrors + (reasons.isEmpty ? said : reasons)).joined(separator: " ")
        return words.isEmpty ? nil : String(words.prefix(400))
    }

    /// Runs the client with `arguments`, giving each line of its output to `line` as it comes; its whole
    /// output, or its error words when it exits non-zero.
    private func run(_ arguments: [String], stopper: Stopper? = nil, line: (String) -> Void = { _ in }) throws(Failure)
        -> String
    {
        let client: ChildProcess
        do throws(ChildProcess.Failure) {
            client = try ChildProcess(path, arguments)
        } catch {
            throw Failure(message: error.description)
        }
        stopper?.started(client)
        defer { stopper?.ended() }
        // Errors are read on their own thread, so that a client writing much of them never blocks on a
        // full pipe while its output is read here.
        let said = ErrorWords()
        let reader = Thread { said.bytes = client.errors.readDataToEndOfFile() }
        reader.start()
        var all = Data()
        var pending = Data()
        while true {
            let chunk = client.output.availableData
            if chunk.isEmpty { break }
            all.append(chunk)
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending = Data(pending[(newline + 1)...])
            }
        }
        let ending = client.wait()
        said.done.wait()
        switch ending {
        case .exited(0):
            return String(decoding: all, as: UTF8.self)
        case .signalled where stopper?.stopped == true:
            throw Failure(message: "stopped with the station before RAUC answered")
        case .exited(let status):
            throw Failure(message: Self.failure(output: all, errors: said.bytes) ?? "exit status \(status)")
        case .signalled(let signal):
            throw Failure(message: Self.failure(output: all, errors: said.bytes) ?? "ended by signal \(signal)")
        }
    }
}

/// What the client wrote to stderr, read by its own thread.
private final class ErrorWords: @unchecked Sendable {
    // Written once by the reader thread before `done` is signalled, read after waiting on it.
    let done = DispatchSemaphore(value: 0)
    var bytes = Data() {
        didSet { done.signal() }
    }
}
