import Foundation
import SnapCore

/// What a machine has: cameras, GPIO chips, DRM cards and framebuffers, as `snapstation selftest`
/// prints them. Read only: nothing is configured, driven or shown.
public struct DeviceSurvey: Sendable {
    public struct Chip: Sendable {
        public var path: String
        public var info: GPIOChipInfo?
        /// Lines that have a name, by offset.
        public var namedLines: [(offset: Int, info: GPIOLineInfo)]
        public var problem: String?
    }

    public struct Card: Sendable {
        public var path: String
        public var info: DRMCardInfo?
        public var problem: String?
    }

    public struct Framebuffer: Sendable {
        public var path: String
        public var info: FramebufferInfo?
        public var problem: String?
    }

    public var libcameraVersion: String
    public var cameras: [CameraInfo] = []
    public var cameraProblem: String?
    public var gpiodVersion: Int
    public var chips: [Chip] = []
    public var cards: [Card] = []
    public var framebuffers: [Framebuffer] = []
    /// V4L2 nodes and the names their drivers give them (what USB webcams show up as).
    public var videoNodes: [(path: String, name: String)] = []
    /// What each V4L2 node offers the v4l2 camera backend, by path: its capture formats and largest size,
    /// or why it is not one ("media controller: libcamera's").
    public var videoCapture: [String: String] = [:]

    /// Looks at everything under `devices` (normally /dev) and `sysfs` (normally /sys).
    public static func take(
        camera: any CameraCalls = LibCamera(), gpio: any GPIOCalls = LibGPIOD(),
        display: any DisplayCalls = LibDRM(), v4l2: any V4L2Calls = KernelV4L2(), devices: String = "/dev",
        sysfs: String = "/sys"
    ) -> DeviceSurvey {
        var survey = DeviceSurvey(libcameraVersion: camera.libraryVersion, gpiodVersion: gpio.apiVersion)
        switch camera.startManager() {
        case .success(let manager):
            survey.cameras = camera.cameras(manager)
            camera.stopManager(manager)
        case .failure(let error):
            survey.cameraProblem = "libcamera did not start: \(error)"
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: devices))?.sorted(by: numericOrder) ?? []
        for name in names where name.hasPrefix("gpiochip") {
            let path = devices + "/" + name
            var chip = Chip(path: path, namedLines: [])
            switch gpio.openChip(path) {
            case .success(let handle):
                let info = gpio.chipInfo(handle)
                chip.info = info
                for offset in 0..<info.lineCount {
                    if case .success(let line) = gpio.lineInfo(handle, offset: offset), !line.name.isEmpty {
                        chip.namedLines.append((offset, line))
                    }
                }
                gpio.closeChip(handle)
            case .failure(let error):
                chip.problem = "\(error)"
            }
            survey.chips.append(chip)
        }
        let cards = (try? FileManager.default.contentsOfDirectory(atPath: devices + "/dri"))?.sorted(by: numericOrder)
        for name in cards ?? [] where name.hasPrefix("card") {
            let path = devices + "/dri/" + name
            switch display.describeDRM(card: path) {
            case .success(let info): survey.cards.append(Card(path: path, info: info))
            case .failure(let error): survey.cards.append(Card(path: path, problem: "\(error)"))
            }
        }
        for name in names where name.hasPrefix("fb") && name.dropFirst(2).allSatisfy(\.isNumber) {
            let path = devices + "/" + name
            switch display.openFramebuffer(path) {
            case .success(let (handle, info)):
                display.closeFramebuffer(handle)
                survey.framebuffers.append(Framebuffer(path: path, info: info))
            case .failure(let error):
                survey.framebuffers.append(Framebuffer(path: path, problem: "\(error)"))
            }
        }
        for name in names where name.hasPrefix("video") {
            let label = (try? String(contentsOfFile: "\(sysfs)/class/video4linux/\(name)/name", encoding: .utf8)) ?? ""
            survey.videoNodes.append((devices + "/" + name, label.trimmingCharacters(in: .whitespacesAndNewlines)))
            survey.videoCapture[devices + "/" + name] = captureSummary(devices + "/" + name, v4l2)
        }
        return survey
    }

    /// The survey as a person reads it: one table per kind of device.
    public var report: String {
        var lines: [String] = []
        lines.append("Cameras (libcamera \(libcameraVersion))")
        if let cameraProblem { lines.append("  \(cameraProblem)") }
        lines += Self.table(
            ["#", "id", "model", "sensor", "preview formats", "AF", "AE", "still with preview"],
            cameras.enumerated().map { index, camera in
                [
                    "\(index)", camera.id, camera.model.isEmpty ? "-" : camera.model,
                    camera.width > 0 ? "\(camera.width)x\(camera.height)" : "-",
                    camera.formats.prefix(6).map(\.description).joined(separator: " "), Self.yes(camera.autofocus),
                    Self.yes(camera.autoExposure), Self.yes(camera.stillWithPreview),
                ]
            }, empty: "no camera found")
        if !videoNodes.isEmpty {
            lines.append("")
            lines.append("V4L2 nodes")
            lines += Self.table(
                ["node", "driver's name", "v4l2 capture"],
                videoNodes.map { [$0.path, $0.name, videoCapture[$0.path] ?? "-"] }, empty: "")
        }
        lines.append("")
        lines.append("GPIO chips (libgpiod v\(gpiodVersion))")
        lines += Self.table(
            ["chip", "label", "lines", "named lines (offset name [holder])"],
            chips.map { chip in
                guard let info = chip.info else { return [chip.path, "-", "-", chip.problem ?? "-"] }
                let named = chip.namedLines.prefix(12).map { line in
                    "\(line.offset) \(line.info.name)" + (line.info.used ? " [\(line.info.consumer)]" : "")
                }
                let more = chip.namedLines.count > 12 ? ", … \(chip.namedLines.count - 12) more" : ""
                return [chip.path, info.label, "\(info.lineCount)", named.joined(separator: ", ") + more]
            }, empty: "no GPIO chip found")
        lines.append("")
        lines.append("Displays (DRM/KMS)")
        lines += Self.table(
            ["card", "driver", "connector", "state", "preferred mode", "planes (YUV)", "master"],
            cards.flatMap { card -> [[String]] in
                guard let info = card.info else { return [[card.path, "-", "-", card.problem ?? "-", "", "", ""]] }
                guard info.kms, !info.connectors.isEmpty else {
                    return [[card.path, info.driver, "-", "no display outputs (render only)", "", "", ""]]
                }
                return info.connectors.map { connector in
                    [
                        card.path, info.driver, connector.name, connector.connected ? "connected" : "disconnected",
                        connector.width > 0
                            ? "\(connector.width)x\(connector.height)@\(String(format: "%.2f", connector.refreshHz))"
                            : "-",
                        "\(info.planes) (\(info.yuvPlanes))", info.masterAvailable ? "free" : "held elsewhere",
                    ]
                }
            }, empty: "no DRM card found")
        if !framebuffers.isEmpty {
            lines.append("")
            lines.append("Framebuffers (fbdev)")
            lines += Self.table(
                ["device", "id", "size", "bits"],
                framebuffers.map { fb in
                    guard let info = fb.info else { return [fb.path, fb.problem ?? "-", "", ""] }
                    return [fb.path, info.id, "\(info.width)x\(info.height)", "\(info.bitsPerPixel)"]
                }, empty: "")
        }
        return lines.joined(separator: "\n")
    }

    static func yes(_ value: Bool) -> String { value ? "yes" : "no" }

    /// Columns padded to their widest cell, or the `empty` sentence when there are no rows.
    static func table(_ header: [String], _ rows: [[String]], empty: String) -> [String] {
        guard !rows.isEmpty else { return ["  \(empty)"] }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            return "  " + padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return [line(header)] + rows.map(line)
    }
}

/// A V4L2 node as the v4l2 camera backend sees it: "YUYV MJPG (+2 others), up to 1920x1080", or why it is
/// not a webcam.
private func captureSummary(_ path: String, _ v4l2: any V4L2Calls) -> String {
    switch v4l2.open(path) {
    case .failure(let failure):
        return failure.error == .accessDenied ? "permission denied (the video group)" : "\(failure.error)"
    case .success(let (device, info)):
        defer { v4l2.close(device) }
        guard info.capture else { return "not a capture node" }
        guard !info.mediaController else { return "media controller (libcamera's)" }
        let formats = v4l2.formats(device)
        let largest = formats.flatMap(\.sizes).compactMap { size -> (Int, Int)? in
            switch size {
            case .discrete(let width, let height): (width, height)
            case .stepwise(let widths, _, let heights, _): (widths.upperBound, heights.upperBound)
            }
        }.max { $0.0 * $0.1 < $1.0 * $1.1 }
        // Only the formats the station takes are named: vivid alone lists over 60.
        let usable = formats.map(\.fourcc).filter(V4L2Plan.previewOrder.contains)
        let others = formats.count - usable.count
        guard !usable.isEmpty else { return "no format the station takes (\(formats.count) others)" }
        return usable.map(\.description).joined(separator: " ") + (others > 0 ? " (+\(others) others)" : "")
            + (largest.map { ", up to \($0.0)x\($0.1)" } ?? "")
    }
}

/// "gpiochip2" after "gpiochip10"? No: names with numbers sort by the number.
private func numericOrder(_ a: String, _ b: String) -> Bool {
    a.compare(b, options: .numeric) == .orderedAscending
}
