import Foundation
internal import GRDB
import SnapCore

/// One row of a backup's store, read as a form's fields are: each value must be of its column's kind and
/// within what the station writes there, or the row is not restored (`Refused` names the column). A column
/// the backup's table lacks (a backup of an older version) reads as NULL, as a migration would have added
/// it.
struct BackupRow {
    let row: Row

    /// The column whose value is not one the station writes there.
    struct Refused: Error, CustomStringConvertible {
        let column: String
        var description: String { column }
    }

    /// The latest time a row may name: 2100-01-01 (a station's clock is never past it).
    static let latestTime = 4_102_444_800.0

    func value(_ column: String) -> DatabaseValue { row.hasColumn(column) ? row[column] : .null }

    func isNull(_ column: String) -> Bool { value(column).isNull }

    /// A text of at most `most` characters with no control character; `empty`: may it be "".
    func text(_ column: String, most: Int, empty: Bool = true) throws(Refused) -> String {
        guard case .string(let text) = value(column).storage, empty || !text.isEmpty, text.count <= most,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw Refused(column: column) }
        return text
    }

    /// As `text`, or nil where the value is NULL.
    func optionalText(_ column: String, most: Int) throws(Refused) -> String? {
        isNull(column) ? nil : try text(column, most: most)
    }

    /// A whole number in `range`; `absent`, where given, stands for NULL.
    func int(_ column: String, _ range: ClosedRange<Int>, absent: Int? = nil) throws(Refused) -> Int {
        if isNull(column), let absent { return absent }
        guard case .int64(let number) = value(column).storage, range.contains(Int(number)) else {
            throw Refused(column: column)
        }
        return Int(number)
    }

    /// As `int`, or nil where the value is NULL.
    func optionalInt(_ column: String, _ range: ClosedRange<Int>) throws(Refused) -> Int? {
        isNull(column) ? nil : try int(column, range)
    }

    /// A finite number in `range` (a whole number is one too).
    func real(_ column: String, _ range: ClosedRange<Double>) throws(Refused) -> Double {
        let number: Double
        switch value(column).storage {
        case .double(let value): number = value
        case .int64(let value): number = Double(value)
        default: throw Refused(column: column)
        }
        guard number.isFinite, range.contains(number) else { throw Refused(column: column) }
        return number
    }

    /// A moment, in seconds since 1970, up to `latestTime`.
    func time(_ column: String) throws(Refused) -> Double { try real(column, 0...Self.latestTime) }

    /// 0 or 1.
    func flag(_ column: String, absent: Bool = false) throws(Refused) -> Bool {
        try int(column, 0...1, absent: absent ? 1 : 0) == 1
    }

    /// A day as the store writes it, `YYYY-MM-DD` and nothing else.
    func day(_ column: String) throws(Refused) -> LocalDay {
        let text = try text(column, most: 10)
        guard let day = LocalDay(text), day.description == text else { throw Refused(column: column) }
        return day
    }

    /// As `day`, or nil where the value is NULL.
    func optionalDay(_ column: String) throws(Refused) -> LocalDay? { isNull(column) ? nil : try day(column) }

    func photoID(_ column: String) throws(Refused) -> PhotoID {
        guard let id = PhotoID(parsing: try text(column, most: PhotoID.maximumLength)) else {
            throw Refused(column: column)
        }
        return id
    }

    /// JSON the station wrote, read into `type` (whose decoding checks its own values), at most 1 MB.
    func json<Value: Decodable>(_ column: String, as type: Value.Type) throws(Refused) -> Value {
        let text = try text(column, most: 1 << 20)
        guard let value = try? JSONDecoder().decode(type, from: Data(text.utf8)) else {
            throw Refused(column: column)
        }
        return value
    }

    /// Whether the row says it has the file of `column` (its old path columns: empty or NULL, none). What
    /// the path says is never read: the station makes it from the row's id.
    func has(_ column: String) -> Bool {
        guard case .string(let text) = value(column).storage else { return false }
        return !text.isEmpty
    }

    /// The day folder of the files of `id`: the row's `files_day`, or in a backup of a version before it
    /// (whose rows named paths), the day the paths were in when they are exactly where the station made them
    /// in `directory`, the state folder the backup was made in. Nil: the row has no files.
    func filesDay(of id: PhotoID, columns: [String], madeIn directory: String) throws(Refused) -> LocalDay? {
        if row.hasColumn("files_day") { return try optionalDay("files_day") }
        let paths = columns.map { column -> String? in
            guard case .string(let text) = value(column).storage else { return nil }
            return text
        }
        return StationStore.filesDay(of: id, paths: paths, in: directory)
    }
}
