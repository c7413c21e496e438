import Foundation

/// A two-slot system under RAUC's stand-in (Tests/Fakes/rauc.py): a `rauc` executable for one test, its
/// system (grubenv, the slots' versions, the booted slot) in a JSON file beside it, and bundles.
public final class FakeRAUC: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fakes/rauc.py").path

    public let folder: String
    /// The `rauc` to give the station (`update.rauc`).
    public var path: String { folder + "/rauc" }
    public var systemPath: String { folder + "/system.json" }

    /// A fresh system booted from slot A, both slots good, A first; `compatible` as the image's.
    public init(in folder: String, compatible: String = "snapstation-x86-vm") throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let system: [String: Any] = [
            "compatible": compatible, "booted": "A", "versions": [String: String](),
            "grubenv": ["ORDER": "A B", "A_OK": 1, "A_TRY": 1, "B_OK": 0, "B_TRY": 0],
        ]
        try JSONSerialization.data(withJSONObject: system).write(to: URL(fileURLWithPath: systemPath))
        let wrapper = "#!/bin/sh\nFAKE_RAUC_SYSTEM='\(systemPath)' exec /usr/bin/python3 '\(Self.script)' \"$@\"\n"
        let draft = folder + "/rauc.draft"
        try wrapper.write(toFile: draft, atomically: false, encoding: .utf8)
        // The executable is written by `install`, a process of its own: written here, its descriptor would
        // be open a moment in a child another test's thread forks meanwhile (before that child closes it),
        // and the station's first `rauc` could not start: "Text file busy" (seen on a loaded machine).
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/usr/bin/install")
        install.arguments = ["-m", "755", draft, path]
        try install.run()
        install.waitUntilExit()
        guard install.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Writes a bundle file: signed or not, for `compatible`, failing half way with `fails`; with
    /// `hangs`, its install writes the client's process id to that file at 40% and waits for a signal.
    public func bundle(
        _ name: String, version: String, signed: Bool = true, compatible: String = "snapstation-x86-vm",
        fails: String? = nil, hangs: String? = nil
    ) throws -> String {
        var bundle: [String: Any] = ["compatible": compatible, "version": version, "signed": signed]
        if let fails { bundle["fails"] = fails }
        if let hangs { bundle["hangs"] = hangs }
        let path = folder + "/" + name
        try JSONSerialization.data(withJSONObject: bundle).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Restarts the system as GRUB would (image-recipes/ota/grub.cfg): the first slot in ORDER that is
    /// OK and untried, its try spent; the slot booted.
    @discardableResult
    public func boot() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["fake-boot"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The boot's id, as the kernel's boot_id is: another after each `boot()`.
    public func bootID() -> String {
        let system = try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: systemPath)))
        return "boot-\((system as? [String: Any])?["boots"] as? Int ?? 0)"
    }

    /// The bundles `rauc install` was asked to install, in order (whether it installed them or not).
    public func installsAsked() throws -> [String] {
        let system = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: systemPath)))
        return (system as? [String: Any])?["installs"] as? [String] ?? []
    }

    /// The system's grubenv as the stand-in holds it.
    public func grubenv() throws -> [String: Any] {
        let system = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: systemPath)))
        return (system as? [String: Any])?["grubenv"] as? [String: Any] ?? [:]
    }
}
