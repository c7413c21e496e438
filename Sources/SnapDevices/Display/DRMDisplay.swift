import Foundation
import SnapFiles
import SnapImaging
import Synchronization

/// A display that can show camera buffers on a plane of their own, under the screens: zero copy, the way
/// rpicam-apps previews.
public protocol ScanoutDisplay: Display {
    /// Shows `screens` (transparent where the camera shows through) over `frame`'s buffer, scanned out
    /// directly. Returns false when this display cannot for this frame; the caller then composes on the CPU.
    func present(_ screens: FramePixels, over frame: PreviewFrame) throws(DeviceError) -> Bool
    /// "plane", "CPU (reason)", or "not tried yet": for the log.
    var previewPath: String { get }
}

/// A display through DRM/KMS: two dumb buffers, the screen drawn into the one not shown, then a page
/// flip on vblank, so a half-drawn frame is never on screen.
///
/// The canvas is the panel's size, turned by `rotation` for a portrait-mounted panel. `present` waits
/// for the flip (one refresh at most), which also paces the preview to the panel.
public final class DRMDisplay: ScanoutDisplay {
    public let width: Int
    public let height: Int
    public let output: DRMOutput
    public var previewFramesPerSecond: Double { output.refreshHz }

    private let calls: any DisplayCalls
    private let handle: DisplayHandle
    private let video: Lock<VideoState>

    /// Everything a present touches, under one lock: the blit's scratch and the zero-copy state.
    private struct VideoState {
        enum Mode: Equatable {
            case untried
            case on
            case off(String)
        }
        var blit: PanelBlit
        var mode = Mode.untried
        /// The camera frame on screen and its framebuffer: held until the next flip replaces them, so the
        /// camera does not write into a buffer being scanned out.
        var onScreen: PreviewFrame?
        var framebuffer: UInt32 = 0
        /// What the last present changed; nil when it was a whole frame.
        var lastChange: [PixelRegion]?

        /// What a present must copy into the buffer it draws into (nil: all of it). That buffer holds
        /// the frame before last (two buffers take turns), so a partial redraw copies what changed in
        /// this frame and in the last one; after a whole frame, the whole of this one.
        mutating func copyRegions(for change: FrameChange) -> [PixelRegion]? {
            defer { lastChange = change.regions }
            guard let changed = change.regions, let last = lastChange else { return nil }
            return changed + last
        }
    }

    /// `card` "" picks the first card with a connected display; `connector` "" the first connected one;
    /// `mode` nil the connector's preferred mode.
    public init(
        card: String, connector: String = "", mode: (width: Int, height: Int)? = nil, rotation: Int = 0,
        calls: any DisplayCalls = LibDRM()
    ) throws(DeviceError) {
        switch calls.openDRM(card: card, connector: connector, width: mode?.width ?? 0, height: mode?.height ?? 0) {
        case .success(let (handle, output)):
            self.handle = handle
            self.output = output
        case .failure(let failure):
            throw DeviceError(.display, Self.openProblem(failure))
        }
        self.calls = calls
        (width, height) = PanelBlit.canvasSize(panelWidth: output.width, height: output.height, rotation: rotation)
        video = Lock(VideoState(blit: PanelBlit(rotation: rotation, format: .xrgb8888)))
    }

    deinit {
        video.withLock { state in
            if state.framebuffer != 0 { calls.forgetVideo(handle, framebuffer: state.framebuffer) }
            state.onScreen = nil
        }
        calls.closeDRM(handle)
    }

    static func openProblem(_ failure: DriverFailure) -> String {
        switch failure.error {
        case .accessDenied:
            "\(failure.message); the station's user needs the video and render groups (see systemd/)"
        case .noEntry where failure.message.isEmpty: "no DRM card found: is the display driver loaded?"
        default: failure.message.isEmpty ? "DRM: \(failure.error)" : failure.message
        }
    }

    public func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError) {
        let result = video.withLock { state -> Result<Void, SystemError> in
            let regions = state.copyRegions(for: change)
            guard state.mode == .on else {
                state.blit.copy(frame, regions: regions, to: calls.backBuffer(handle), stride: output.stride)
                return calls.present(handle, timeout: .milliseconds(500))
            }
            // Once the planes are in use, every frame goes through them; this one without the camera.
            state.blit.copy(frame, regions: regions, to: calls.videoScreenBuffer(handle), stride: output.stride)
            return calls.presentVideo(handle, framebuffer: 0, width: 0, height: 0, timeout: .milliseconds(500)).map {
                replaceOnScreen(&state, with: nil, framebuffer: 0)
            }
        }
        if case .failure(let error) = result {
            video.withLock { $0.lastChange = nil }  // which buffer shows what is unknown: the next is whole
            throw DeviceError(.display, "\(output.card) \(output.connector): page flip failed: \(error)")
        }
    }

    public func setPower(on: Bool) throws(DeviceError) {
        if case .failure(let error) = video.withLock({ _ in calls.setPower(handle, on: on) }) {
            throw DeviceError(
                .display, "\(output.card) \(output.connector): DPMS \(on ? "on" : "off") failed: \(error)")
        }
    }

    public var previewPath: String {
        switch video.withLock({ $0.mode }) {
        case .untried: "not tried yet"
        case .on: "zero copy: camera buffers on their own plane"
        case .off(let reason): "composed on the CPU (\(reason))"
        }
    }

    public func present(_ screens: FramePixels, over frame: PreviewFrame) throws(DeviceError) -> Bool {
        guard let scanout = frame.scanout, video.withLock({ $0.blit.rotation == 0 }) else { return false }
        let result = video.withLock { state -> Result<Bool, SystemError> in
            if state.mode == .untried {
                switch calls.enableVideo(handle, format: scanout.format) {
                case .success: state.mode = .on
                case .failure(let failure): state.mode = .off(failure.message)
                }
            }
            guard state.mode == .on else { return .success(false) }
            let framebuffer: UInt32
            switch calls.importVideo(handle, scanout) {
            case .success(let imported): framebuffer = imported
            case .failure(let error):
                // A buffer the driver cannot import will not become importable: compose from now on.
                state.mode = .off("the camera's \(scanout.format) buffers cannot be imported: \(error)")
                return .success(false)
            }
            state.blit.copy(screens, to: calls.videoScreenBuffer(handle), stride: output.stride)
            state.lastChange = nil
            let shown = calls.presentVideo(
                handle, framebuffer: framebuffer, width: scanout.width, height: scanout.height,
                timeout: .milliseconds(500))
            guard case .success = shown else {
                calls.forgetVideo(handle, framebuffer: framebuffer)
                return shown.map { true }
            }
            replaceOnScreen(&state, with: frame, framebuffer: framebuffer)
            return .success(true)
        }
        switch result {
        case .success(let shown): return shown
        case .failure(let error):
            throw DeviceError(.display, "\(output.card) \(output.connector): page flip failed: \(error)")
        }
    }

    /// After a flip: the previous camera buffer is off screen, so its framebuffer goes and the frame is
    /// let go (which hands the buffer back to the camera).
    private func replaceOnScreen(_ state: inout VideoState, with frame: PreviewFrame?, framebuffer: UInt32) {
        if state.framebuffer != 0 { calls.forgetVideo(handle, framebuffer: state.framebuffer) }
        state.framebuffer = framebuffer
        state.onScreen = frame
    }
}

/// A display through the Linux framebuffer (/dev/fb0): small SPI panels whose driver has no KMS. The
/// canvas is written straight into the mapped screen memory, converted to the panel's 16- or 32-bit
/// format. There is no vblank to wait for, so the preview is capped at `previewFramesPerSecond`.
public final class FramebufferDisplay: Display {
    public let width: Int
    public let height: Int
    public let info: FramebufferInfo
    public let previewFramesPerSecond: Double

    private let calls: any DisplayCalls
    private let handle: DisplayHandle
    private let blit: Lock<PanelBlit>

    public init(
        path: String, rotation: Int = 0, previewFramesPerSecond: Double = 15, calls: any DisplayCalls = LibDRM()
    ) throws(DeviceError) {
        switch calls.openFramebuffer(path) {
        case .success(let (handle, info)):
            self.handle = handle
            self.info = info
        case .failure(let error):
            let hint =
                switch error {
                case .noEntry: "; is the panel's overlay in config.txt (see board/)?"
                case .accessDenied: "; the station's user needs the video group"
                case SystemError(ENOTSUP): ": only 16- and 32-bit framebuffers are supported"
                default: ""
                }
            throw DeviceError(.display, "\(path): \(error)\(hint)")
        }
        self.calls = calls
        self.previewFramesPerSecond = previewFramesPerSecond
        (width, height) = PanelBlit.canvasSize(panelWidth: info.width, height: info.height, rotation: rotation)
        let format: PanelFormat = info.bitsPerPixel == 16 ? .rgb565 : (info.redHigh ? .xrgb8888 : .xbgr8888)
        blit = Lock(PanelBlit(rotation: rotation, format: format))
    }

    deinit { calls.closeFramebuffer(handle) }

    public func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError) {
        // One buffer, on screen: only what changed is copied into it.
        blit.withLock {
            $0.copy(frame, regions: change.regions, to: calls.framebufferMemory(handle), stride: info.stride)
        }
    }
}
