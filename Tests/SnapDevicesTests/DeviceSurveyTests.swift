import Foundation
import SnapTestSupport
import Testing

@testable import SnapDevices

@Suite("Device survey (selftest tables)")
struct DeviceSurveyTests {
    @Test("should list cameras, GPIO chips with their named lines and holders, DRM connectors and V4L2 nodes")
    func tables() throws {
        let dev = TemporaryDirectory("dev")
        let sys = TemporaryDirectory("sys")
        for node in ["gpiochip0", "gpiochip9", "video0", "fb0", "null"] {
            _ = FileManager.default.createFile(atPath: dev.path + "/" + node, contents: nil)
        }
        try FileManager.default.createDirectory(atPath: dev.path + "/dri", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dev.path + "/dri/card1", contents: nil)
        try FileManager.default.createDirectory(
            atPath: sys.path + "/class/video4linux/video0", withIntermediateDirectories: true)
        try "unicam-image\n".write(
            toFile: sys.path + "/class/video4linux/video0/name", atomically: true, encoding: .utf8)

        let camera = MockCamera()
        camera.state.withLock {
            $0.cameras = [
                CameraInfo(
                    id: "/base/soc/i2c0mux/i2c@1/imx708@1a", model: "imx708", location: .back, width: 4608,
                    height: 2592, formats: [.xrgb8888, .nv12], autofocus: true, autoExposure: true,
                    stillWithPreview: true)
            ]
        }
        let gpio = MockGPIO(chips: ["gpiochip0": ("pinctrl-bcm2711", ["ID_SDA", "busy:pigpiod:GPIO17", ""])])
        let display = MockDisplay()
        display.state.withLock {
            $0.card = DRMCardInfo(
                driver: "vc4", kms: true, masterAvailable: true,
                connectors: [
                    .init(name: "HDMI-A-1", connected: true, width: 1920, height: 1080, refreshHz: 60),
                    .init(name: "HDMI-A-2", connected: false, width: 0, height: 0, refreshHz: 0),
                ], planes: 9, yuvPlanes: 8)
        }
        let survey = DeviceSurvey.take(camera: camera, gpio: gpio, display: display, devices: dev.path, sysfs: sys.path)
        let report = survey.report
        print(report)
        #expect(survey.cameras.count == 1)
        #expect(report.contains("imx708"))
        #expect(report.contains("4608x2592"))
        #expect(report.contains("XR24 NV12"))
        #expect(survey.chips.map(\.path) == [dev.path + "/gpiochip0", dev.path + "/gpiochip9"])
        #expect(report.contains("0 ID_SDA, 1 GPIO17 [pigpiod]"), "named lines with their holder; unnamed left out")
        #expect(report.contains("gpiochip9  -                -      No such file or directory (ENOENT)"))
        let hdmi = report.split(separator: "\n").first { $0.contains("HDMI-A-1") }.map(String.init) ?? ""
        #expect(hdmi.contains(" connected ") && hdmi.contains("1920x1080@60.00") && hdmi.contains("9 (8)"))
        #expect(report.contains("disconnected"))
        #expect(report.contains("video0  unicam-image"))
        #expect(report.contains("fb_ili9486"))
    }

    @Test("should say what is missing on a machine with nothing")
    func empty() {
        let dev = TemporaryDirectory("empty-dev")
        let camera = MockCamera()
        camera.state.withLock { $0.cameras = [] }
        let report = DeviceSurvey.take(
            camera: camera, gpio: MockGPIO(chips: [:]), display: MockDisplay(), devices: dev.path, sysfs: dev.path
        ).report
        #expect(report.contains("no camera found"))
        #expect(report.contains("no GPIO chip found"))
        #expect(report.contains("no DRM card found"))
    }
}
