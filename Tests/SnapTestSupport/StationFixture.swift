import Foundation

/// What the end-to-end tests share: a config for a small, quick simulated station, and a reading of the
/// PNG frames its headless display wrote.
public enum StationFixture {
    /// Writes `snapstation.toml` into `folder`: UTC, a 480×320 display, small camera frames, a one-second
    /// countdown, no AI key unless `extra` names one, the owner's page on a free port of 127.0.0.1, then
    /// `extra`'s own keys in their tables.
    @discardableResult
    public static func writeConfig(in folder: String, _ extra: [String: [String]]) throws -> String {
        var tables: [String: [String]] = [
            "station": ["time_zone = \"UTC\""],
            "camera": ["preview_width = 320", "preview_height = 240", "still_width = 640", "still_height = 480"],
            "display": ["width = 480", "height = 320", "preview_png_fps = 2.0"],
            "countdown": ["seconds = 1"],
            // A variable nobody sets: these runs must not reach a real AI service whatever the shell holds.
            "ai": ["key_source = \"env:SNAPSTATION_TEST_UNSET_KEY\""],
            // The owner's page as shipped, on a free port of this machine only: tests run side by side.
            "web": ["address = \"127.0.0.1\"", "port = 0"],
        ]
        for (table, lines) in extra {
            let keys = Set(lines.compactMap { $0.split(separator: "=").first?.trimmingCharacters(in: .whitespaces) })
            tables[table] =
                (tables[table] ?? []).filter { line in
                    !keys.contains(line.split(separator: "=").first?.trimmingCharacters(in: .whitespaces) ?? "")
                } + lines
        }
        let text = tables.keys.sorted().map { "[\($0)]\n" + tables[$0]!.joined(separator: "\n") }.joined(
            separator: "\n")
        let path = folder + "/snapstation.toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The screens the frames in `framesFolder` show, in order, with repeats folded.
    public static func screens(in framesFolder: String) -> [String] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: framesFolder)) ?? []).sorted()
        var names: [String] = []
        for file in files where file != "latest.png" && file.hasSuffix(".png") {
            let name = String(file.dropFirst(7).dropLast(4))
            if names.last != name { names.append(name) }
        }
        return names
    }
}
