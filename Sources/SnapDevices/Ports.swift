import SnapCore
import SnapImaging

/// A device that is missing or failed: which one, and what its driver said.
public struct DeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var device: DeviceKind
    public var message: String

    public init(_ device: DeviceKind, _ message: String) {
        self.device = device
        self.message = message
    }

    public var description: String { "\(device.rawValue): \(message)" }
}

/// The camera: a preview stream and stills taken from it without a mode switch.
///
/// What every driver of a device guarantees (`LibcameraCamera`, `V4L2Camera`; the simulated camera draws
/// its frames and stills on the spot, the null one fails each call):
/// - **One owner.** Every call that opens, configures, starts, stops or closes the device runs on the
///   driver's own thread, never on the cooperative pool (two threads: a blocking call there stalls the
///   station), and those calls never interleave.
/// - **A stall throws.** A stream that delivers no frame for the driver's stall timeout ends
///   `streamPreview` with an error, as an unplugged camera does; `CameraService` opens it again.
/// - **Stills are queued and time out** (one `StillQueue` type for every driver): each `captureStill` gets its own still in the
///   order asked, fails after the still timeout, and fails at once when no stream runs.
/// - **Buffers go back guarded.** A preview frame's buffer goes back to the device when its last holder
///   drops it, under the lock stopping takes: never to a stream that stopped or was reconfigured since.
/// The backend is chosen in one place, `Station.makeCamera` (SnapApp), which selftest uses too.
public protocol Camera: Sendable {
    /// Streams preview frames into `slot` until the task is cancelled, calling `started` once frames flow;
    /// throws when the camera is missing, goes away or stalls.
    func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    /// Takes one still at full resolution from the running camera: queued behind stills asked earlier,
    /// failing after the driver's still timeout, or at once when the camera is not streaming.
    func captureStill() async throws(DeviceError) -> PixelImage
    /// Gets ready for a still while the countdown runs: a camera that cannot stream preview and stills
    /// together switches to its still mode here, so the shutter itself needs no mode switch.
    func prepareStill() async
}

extension Camera {
    public func prepareStill() async {}
}

/// The shutter button and the optional mode button.
public protocol Buttons: Sendable {
    /// Gestures as they happen; the stream ends when the task is cancelled or the input closes.
    func gestures() throws(DeviceError) -> AsyncStream<ButtonGesture>
    /// True when the stream ending means the device was lost (a GPIO chip gone), so the buttons should
    /// be opened again; false when it means the input closed for good (standard input).
    var reopensWhenLost: Bool { get }
}

extension Buttons {
    public var reopensWhenLost: Bool { false }
}

/// The flash LED.
public protocol FlashLED: Sendable {
    func set(on: Bool) throws(DeviceError)
}

/// What changed since the last frame a display was given.
public enum FrameChange: Sendable, Hashable {
    /// A different screen (or different data on it); `name` as `Screen.name`, `caption` as
    /// `Screen.caption` (what it says, in plain text), `texts` the words drawn on it as a person reads
    /// them (in the station's language).
    case screen(String, caption: String = "", texts: [String] = [])
    /// The same screen with a new preview frame under it.
    case preview
    /// The same screen with only these parts redrawn (around the jar's stickers that moved): a display
    /// may copy just them to the panel.
    case regions([PixelRegion])

    /// The parts that changed; nil when all of it may have.
    public var regions: [PixelRegion]? {
        if case .regions(let regions) = self { regions } else { nil }
    }
}

extension FrameChange {
    /// A new screen's change with the texts drawn on it; any other change as it is.
    public func withTexts(_ texts: [String]) -> FrameChange {
        if case .screen(let name, let caption, _) = self { return .screen(name, caption: caption, texts: texts) }
        return self
    }
}

/// The display: shows a drawn frame of its size.
///
/// `present` may block (a page flip waits for vblank): the display service calls it from its own thread.
public protocol Display: Sendable {
    var width: Int { get }
    var height: Int { get }
    /// How often a new preview frame is worth drawing: the panel's refresh, or a headless display's cap.
    var previewFramesPerSecond: Double { get }
    /// True for a display that keeps a record of what it showed (the headless PNG frames): it is given
    /// every screen, not only the newest, so the record tells the whole story.
    var recordsEveryScreen: Bool { get }
    func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError)
    /// Turns the panel off for the night hours, and on again (DPMS where the display has it). The frame
    /// shown before turning off is black, so a display without power control shows nothing either.
    func setPower(on: Bool) throws(DeviceError)
}

extension Display {
    public var recordsEveryScreen: Bool { false }
    public func setPower(on: Bool) throws(DeviceError) {}
}
