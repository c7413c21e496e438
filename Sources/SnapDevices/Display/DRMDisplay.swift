import Foundation
import SnapScreens
import Synchronization

/// A display through DRM/KMS: two dumb buffers, the screen drawn into the one not shown, then a page
/// flip on vblank, so a half-drawn frame is never on screen.
///
/// The canvas is the panel's size, turned by `rotation` for a portrait-mounted panel. `present` waits
/// for the flip (one refresh at most), which also paces the preview to the panel.
public final class DRMDisplay: Display {
    public let width: Int
    public let height: Int
    public let output: DRMOutput
    public var previewFramesPerSecond: Double { output.refreshHz }

    private let calls: any DisplayCalls
    private let handle: DisplayHandle
    private let blit: Mutex<PanelBlit>

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
        blit = Mutex(PanelBlit(rotation: rotation, format: .xrgb8888))
    }

    deinit { calls.closeDRM(handle) }

    static func openProblem(_ failure: DriverFailure) -> String {
        switch failure.error {
        case .accessDenied:
            "\(failure.message); the station's user needs the video and render groups (see systemd/)"
        case .noEntry where failure.message.isEmpty: "no DRM card found: is the display driver loaded?"
        default: failure.message.isEmpty ? "DRM: \(failure.error)" : failure.message
        }
    }

    public func present(_ canvas: Canvas, change: FrameChange) throws(DeviceError) {
        let result = blit.withLock { blit in
            blit.copy(canvas, to: calls.backBuffer(handle), stride: output.stride)
            return calls.present(handle, timeout: .milliseconds(500))
        }
        if case .failure(let error) = result {
            throw DeviceError(.display, "\(output.card) \(output.connector): page flip failed: \(error)")
        }
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
    private let blit: Mutex<PanelBlit>

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
        blit = Mutex(PanelBlit(rotation: rotation, format: format))
    }

    deinit { calls.closeFramebuffer(handle) }

    public func present(_ canvas: Canvas, change: FrameChange) throws(DeviceError) {
        blit.withLock { $0.copy(canvas, to: calls.framebufferMemory(handle), stride: info.stride) }
    }
}
