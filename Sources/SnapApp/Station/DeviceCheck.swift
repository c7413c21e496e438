import Logging
import SnapConfig
import SnapCore
import SnapDevices

/// Whether the devices the config names can be opened: the second half of `snapstation selftest`.
///
/// Each device is opened through the station's own factories (`Station+Parts.swift`) and let go again;
/// nothing is shown or driven (the flash line is requested low). Simulated and "none" devices pass
/// without a look.
public enum DeviceCheck {
    public struct Line: Sendable {
        public var device: DeviceKind
        public var backend: String
        public var result: Result<String, DeviceError>
    }

    public static func run(_ config: StationConfig, logger: Logger) -> [Line] {
        var lines: [Line] = []
        func add(_ device: DeviceKind, _ backend: String, _ check: () throws(DeviceError) -> String) {
            do throws(DeviceError) {
                lines.append(Line(device: device, backend: backend, result: .success(try check())))
            } catch {
                lines.append(Line(device: device, backend: backend, result: .failure(error)))
            }
        }
        switch config.camera.backend {
        case .libcamera:
            add(.camera, "libcamera") { () throws(DeviceError) in try checkCamera(config.camera.id) }
        case .v4l2:
            add(.camera, "v4l2") { () throws(DeviceError) in
                let camera = Station.makeCamera(config.camera.all[0], config.camera, logger: logger)
                guard let v4l2 = camera as? V4L2Camera else { throw DeviceError(.camera, "not a V4L2 camera") }
                return try v4l2.check()
            }
        case .simulated, .none:
            add(.camera, config.camera.backend.rawValue) { "not checked" }
        }
        if config.gpio.backend == .gpiod {
            var missing: [DeviceError] = []
            let (buttons, _) = Station.gpioParts(config.gpio, missing: &missing, logger: logger)
            add(.buttons, "gpiod") { () throws(DeviceError) in
                if let problem = missing.first(where: { $0.device == .buttons }) { throw problem }
                return try (buttons as? GPIOButtons)?.check() ?? "not wired"
            }
            add(.flash, "gpiod") { () throws(DeviceError) in
                if let problem = missing.first(where: { $0.device == .flash }) { throw problem }
                return config.gpio.ledLine.map { "\(config.gpio.chip) \($0)" } ?? "not wired"
            }
        } else {
            add(.buttons, config.gpio.backend.rawValue) { "not checked" }
        }
        switch config.display.backend {
        case .drm, .fbdev:
            add(.display, config.display.backend.rawValue) { () throws(DeviceError) in
                switch try Station.openPanel(config.display) {
                case let drm as DRMDisplay:
                    let output = drm.output
                    return "\(output.card) \(output.connector) \(output.width)x\(output.height)"
                        + " at \(Int(output.refreshHz.rounded())) Hz (\(output.driver))"
                case let framebuffer as FramebufferDisplay:
                    let path = config.display.device.isEmpty ? "/dev/fb0" : config.display.device
                    let info = framebuffer.info
                    return "\(path) \(info.width)x\(info.height), \(info.bitsPerPixel) bits"
                case let other:
                    return "\(other.width)x\(other.height)"
                }
            }
        case .headless, .none:
            add(.display, config.display.backend.rawValue) { "not checked" }
        }
        return lines
    }

    static func checkCamera(_ selector: String, calls: any CameraCalls = LibCamera()) throws(DeviceError) -> String {
        let manager: CameraHandle
        switch calls.startManager() {
        case .success(let handle): manager = handle
        case .failure(let error): throw DeviceError(.camera, "libcamera did not start: \(error)")
        }
        defer { calls.stopManager(manager) }
        switch calls.open(manager, selector: selector) {
        case .success(let camera):
            calls.close(camera)
            let cameras = calls.cameras(manager)
            let index = Int(selector) ?? 0
            let info = cameras.first { $0.id == selector } ?? (cameras.indices.contains(index) ? cameras[index] : nil)
            return info.map { "\($0.model.isEmpty ? $0.id : "\($0.model) (\($0.id))")" } ?? selector
        case .failure(let failure):
            throw DeviceError(.camera, LibcameraCamera.openProblem(failure))
        }
    }
}
