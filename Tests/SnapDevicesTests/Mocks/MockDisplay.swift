import Foundation
import SnapDevices
import SnapFiles
import Synchronization

/// A display layer in memory: a DRM output with two real buffers that swap on each present, or a
/// framebuffer with padded rows, so tests read back exactly the bytes a panel would scan out.
final class MockDisplay: DisplayCalls, @unchecked Sendable {
    struct State {
        var openFailure: DriverFailure?
        var presentFailure: SystemError?
        var back = 0
        var presents = 0
        var closed = false
        var requested: (card: String, connector: String, width: Int, height: Int)?
        var card: DRMCardInfo?
        var videoFailure: DriverFailure?
        var importFailure: SystemError?
        var enables = 0
        var imported: [Scanout] = []
        var forgotten: [UInt32] = []
        /// The camera framebuffer of each video present (0: the plane hidden).
        var videoPresents: [UInt32] = []
        var nextFramebuffer: UInt32 = 100
        /// Each DPMS change asked for, in order; `powerFailure` refuses them.
        var power: [Bool] = []
        var powerFailure: SystemError?
    }

    let state = Lock(State())
    let output: DRMOutput
    let framebuffer: FramebufferInfo
    /// Two DRM buffers and one framebuffer, `stride * height` bytes each.
    let buffers: [UnsafeMutablePointer<UInt8>]
    let screen: UnsafeMutablePointer<UInt8>

    init(width: Int = 8, height: Int = 4, bitsPerPixel: Int = 32, redHigh: Bool = true) {
        output = DRMOutput(
            card: "/dev/dri/card1", driver: "vc4", connector: "HDMI-A-1", width: width, height: height,
            refreshHz: 60, stride: width * 4 + 64)
        framebuffer = FramebufferInfo(
            id: "fb_ili9486", width: width, height: height, bitsPerPixel: bitsPerPixel,
            stride: width * bitsPerPixel / 8 + 32, redHigh: redHigh)
        buffers = (0..<2).map { _ in
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4 * height + 64 * height)
            buffer.initialize(repeating: 0, count: width * 4 * height + 64 * height)
            return buffer
        }
        screen = .allocate(capacity: framebuffer.stride * height)
        screen.initialize(repeating: 0, count: framebuffer.stride * height)
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
        screen.deallocate()
    }

    /// The buffer on screen after the last present.
    var shown: UnsafeMutablePointer<UInt8> { buffers[state.withLock { 1 - $0.back }] }

    /// The four bytes of the shown pixel at (x, y).
    func shownPixel(x: Int, y: Int) -> [UInt8] {
        (0..<4).map { shown[y * output.stride + x * 4 + $0] }
    }

    func openDRM(card: String, connector: String, width: Int, height: Int)
        -> Result<(DisplayHandle, DRMOutput), DriverFailure>
    {
        state.withLock { state in
            state.requested = (card, connector, width, height)
            if let failure = state.openFailure { return .failure(failure) }
            return .success((DisplayHandle(raw: 0x10), output))
        }
    }

    func backBuffer(_ output: DisplayHandle) -> UnsafeMutablePointer<UInt8> { buffers[state.withLock { $0.back }] }

    func present(_ output: DisplayHandle, timeout: Duration) -> Result<Void, SystemError> {
        state.withLock { state in
            if let failure = state.presentFailure { return .failure(failure) }
            state.presents += 1
            state.back ^= 1
            return .success(())
        }
    }

    func closeDRM(_ output: DisplayHandle) { state.withLock { $0.closed = true } }

    func setPower(_ output: DisplayHandle, on: Bool) -> Result<Void, SystemError> {
        state.withLock { state in
            if let failure = state.powerFailure { return .failure(failure) }
            state.power.append(on)
            return .success(())
        }
    }

    func enableVideo(_ output: DisplayHandle, format: FourCC) -> Result<Void, DriverFailure> {
        state.withLock { state in
            state.enables += 1
            return state.videoFailure.map { .failure($0) } ?? .success(())
        }
    }

    /// The screens' buffer in video mode: the same two buffers, as the layout is the same.
    func videoScreenBuffer(_ output: DisplayHandle) -> UnsafeMutablePointer<UInt8> { backBuffer(output) }

    func importVideo(_ output: DisplayHandle, _ scanout: Scanout) -> Result<UInt32, SystemError> {
        state.withLock { state in
            if let failure = state.importFailure { return .failure(failure) }
            state.imported.append(scanout)
            state.nextFramebuffer += 1
            return .success(state.nextFramebuffer)
        }
    }

    func forgetVideo(_ output: DisplayHandle, framebuffer: UInt32) {
        state.withLock { $0.forgotten.append(framebuffer) }
    }

    func presentVideo(_ output: DisplayHandle, framebuffer: UInt32, width: Int, height: Int, timeout: Duration)
        -> Result<Void, SystemError>
    {
        state.withLock { state in
            if let failure = state.presentFailure { return .failure(failure) }
            state.videoPresents.append(framebuffer)
            state.back ^= 1
            return .success(())
        }
    }

    func describeDRM(card: String) -> Result<DRMCardInfo, SystemError> {
        state.withLock { $0.card.map { .success($0) } ?? .failure(.accessDenied) }
    }

    func openFramebuffer(_ path: String) -> Result<(DisplayHandle, FramebufferInfo), SystemError> {
        if let failure = state.withLock({ $0.openFailure }) { return .failure(failure.error) }
        return .success((DisplayHandle(raw: 0x20), framebuffer))
    }

    func framebufferMemory(_ framebuffer: DisplayHandle) -> UnsafeMutablePointer<UInt8> { screen }

    func closeFramebuffer(_ framebuffer: DisplayHandle) { state.withLock { $0.closed = true } }
}
