import Foundation
import SnapTestSupport
import Testing

@Suite("snapstation selftest")
struct SelftestCommandTests {
    let folder = TemporaryDirectory("selftest")

    @Test("should print the device tables and pass a config that names no real device")
    func simulated() throws {
        let path = folder.path + "/sim.toml"
        try "[camera]\nbackend = \"simulated\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try StationProcess.run(
            ["selftest", "--config", path], logPath: folder.path + "/sim.log")
        #expect(status == 0)
        for heading in ["Cameras (libcamera 0.", "GPIO chips (libgpiod v", "Displays (DRM/KMS)", "This config"] {
            #expect(output.contains(heading), "missing \(heading)")
        }
        #expect(output.contains("ok    camera  simulated"))
    }

    @Test("should fail, naming the chip, when the configured GPIO chip is not there")
    func missingChip() throws {
        let path = folder.path + "/gpio.toml"
        try "[gpio]\nbackend = \"gpiod\"\nchip = \"snapstation-test-chip\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try StationProcess.run(
            ["selftest", "--config", path], logPath: folder.path + "/gpio.log")
        #expect(status == 1)
        #expect(output.contains("FAIL  buttons gpiod     GPIO chip \"snapstation-test-chip\" not found"))
    }

    @Test("should fail when the configured DRM card is not there")
    func missingCard() throws {
        let path = folder.path + "/drm.toml"
        try "[display]\nbackend = \"drm\"\ndevice = \"/dev/dri/snapstation-test-card\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try StationProcess.run(
            ["selftest", "--config", path], logPath: folder.path + "/drm.log")
        #expect(status == 1)
        #expect(output.contains("FAIL  display drm       /dev/dri/snapstation-test-card: No such file or directory"))
    }
}
