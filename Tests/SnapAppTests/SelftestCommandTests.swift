import Foundation
import SnapTestSupport
import Testing

@Suite("snapstation selftest", .startsProcesses)
struct SelftestCommandTests {
    let folder = TemporaryDirectory("selftest")

    /// Runs `snapstation selftest` with a config of `toml`; its exit status and what it printed.
    func selftest(_ name: String, _ toml: String) async throws -> (status: Int32, output: String) {
        let path = folder.path + "/\(name).toml"
        try toml.write(toFile: path, atomically: true, encoding: .utf8)
        return try await StationProcess.run(["selftest", "--config", path], logPath: folder.path + "/\(name).log")
    }

    @Test("should print the device tables and pass a config that names no real device")
    func simulated() async throws {
        let (status, output) = try await selftest("sim", "[camera]\nbackend = \"simulated\"\n")
        #expect(status == 0)
        for heading in ["Cameras (libcamera 0.", "GPIO chips (libgpiod v", "Displays (DRM/KMS)", "This config"] {
            #expect(output.contains(heading), "missing \(heading)")
        }
        #expect(output.contains("ok    camera  simulated"))
    }

    @Test("should fail, naming the chip, when the configured GPIO chip is not there")
    func missingChip() async throws {
        let (status, output) = try await selftest(
            "gpio", "[gpio]\nbackend = \"gpiod\"\nchip = \"snapstation-test-chip\"\n")
        #expect(status == 1)
        #expect(output.contains("FAIL  buttons gpiod     GPIO chip \"snapstation-test-chip\" not found"))
    }

    @Test("should fail when the configured DRM card is not there")
    func missingCard() async throws {
        let (status, output) = try await selftest(
            "drm", "[display]\nbackend = \"drm\"\ndevice = \"/dev/dri/snapstation-test-card\"\n")
        #expect(status == 1)
        #expect(output.contains("FAIL  display drm       /dev/dri/snapstation-test-card: No such file or directory"))
    }
}
