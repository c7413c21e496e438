import Foundation
import SnapCore
import SnapFiles

/// The running system's own version, as its image says it: `IMAGE_VERSION` in os-release(5), which
/// image-recipes/ota/build-rootfs.sh writes with `IMAGE_ID=snapstation` into each slot's root. RAUC knows
/// a slot's version only once a bundle was installed into it; the image's own slots are known by this.
public enum SystemImage {
    /// The image's version; the binary's (`StationVersion.current`) on a system no SnapStation image made
    /// (a development machine, a plain Debian install of the .deb).
    public static func version(osRelease path: String = "/etc/os-release") -> String {
        guard let bytes = FileBytes.readIfPresent(path) else { return StationVersion.current }
        var fields: [Substring: Substring] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            var value = line[line.index(after: equals)...]
            // os-release(5): a value may be quoted in single or double quotes.
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = value.dropFirst().dropLast()
            }
            fields[line[..<equals]] = value
        }
        guard fields["IMAGE_ID"] == "snapstation", let version = fields["IMAGE_VERSION"], !version.isEmpty else {
            return StationVersion.current
        }
        return String(version)
    }

    /// This boot's id, new at every boot (random(4): /proc/sys/kernel/random/boot_id); empty where unread.
    @Sendable public static func bootID() -> String {
        FileBytes.readIfPresent("/proc/sys/kernel/random/boot_id").map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } ?? ""
    }
}
