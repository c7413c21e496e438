import Foundation
import SnapCore
import SnapFiles

/// What the station keeps about updates in its state folder (on the data partition, so both slots read
/// it): the slot it confirmed last and the version each slot was confirmed with, the update it installed
/// last and how that ended, and a return to the slot confirmed last. Each a small JSON file written
/// atomically; a file an older station does not know it leaves alone.
struct UpdateRecords: Sendable {
    /// A slot and the version it ran.
    struct Mark: Codable, Sendable, Hashable {
        var slot: String
        var version: String
    }

    /// The way back to the slot confirmed last (`mark`), asked in the boot `bootID`.
    struct Return: Codable, Sendable, Hashable {
        var mark: Mark
        var bootID: String
    }

    /// An update installed into `slot`, from a system running `from`.
    struct Installed: Codable, Sendable, Hashable {
        var slot: String
        var version: String
        var from: String
        var at: Date
    }

    let folder: String

    private var confirmedPath: String { folder + "/confirmed.json" }
    private var installedPath: String { folder + "/installing.json" }
    private var outcomePath: String { folder + "/outcome.json" }
    private var slotsPath: String { folder + "/confirmed-slots.json" }
    private var returnPath: String { folder + "/returning.json" }

    /// The slot confirmed last, and its version.
    var confirmed: Mark? { read(confirmedPath) }
    var installed: Installed? { read(installedPath) }
    var outcome: UpdateOutcome? { read(outcomePath) }
    /// The slot confirmed last that the station went back to after it did not come up (`returnTo`), until
    /// it is confirmed again.
    var returning: Return? { read(returnPath) }

    /// The version the station last confirmed each slot with, by bootname (a slot it never ran is not there).
    var confirmedSlots: [String: String] { read(slotsPath) ?? [:] }

    /// When the install record was written, from the file's time (nil without one).
    var installedAt: Date? {
        (try? FileManager.default.attributesOfItem(atPath: installedPath))?[.modificationDate] as? Date
    }

    func confirm(_ mark: Mark) throws(FileError) {
        var slots = confirmedSlots
        slots[mark.slot] = mark.version
        try write(slots, to: slotsPath)
        try write(mark, to: confirmedPath)
        if returning?.mark.slot == mark.slot { endReturn() }
    }
    func returnTo(_ mark: Mark, bootID: String) throws(FileError) {
        try write(Return(mark: mark, bootID: bootID), to: returnPath)
    }
    func endReturn() { try? FileManager.default.removeItem(atPath: returnPath) }
    /// An install is writing `slot`: what the station confirmed there is gone, and so is a way back to it.
    func forget(slot: String) throws(FileError) {
        var slots = confirmedSlots
        if slots.removeValue(forKey: slot) != nil { try write(slots, to: slotsPath) }
        endReturn()
    }
    func install(_ installed: Installed) throws(FileError) { try write(installed, to: installedPath) }
    func end(_ outcome: UpdateOutcome) throws(FileError) {
        try write(outcome, to: outcomePath)
        try? FileManager.default.removeItem(atPath: installedPath)
        endReturn()
    }

    private func read<Value: Decodable>(_ path: String) -> Value? {
        guard let bytes = FileBytes.readIfPresent(path) else { return nil }
        return try? Self.decoder.decode(Value.self, from: Data(bytes))
    }

    private func write(_ value: some Encodable, to path: String) throws(FileError) {
        try AtomicFile.createFolder(folder)
        let bytes = (try? Self.encoder.encode(value)) ?? Data()
        try AtomicFile.write(bytes, to: path)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
