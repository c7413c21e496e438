import SnapCore
import SnapImaging

/// A camera that is not there: every call fails with the reason given.
public struct NullCamera: Camera {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    { throw DeviceError(.camera, reason) }
    public func captureStill() async throws(DeviceError) -> PixelImage { throw DeviceError(.camera, reason) }
}

/// No buttons: a stream that never yields.
public struct NullButtons: Buttons {
    public init() {}
    public func gestures() throws(DeviceError) -> AsyncStream<ButtonGesture> { AsyncStream { _ in } }
}

/// No flash LED: switching it does nothing.
public struct NullFlash: FlashLED {
    public init() {}
    public func set(on: Bool) throws(DeviceError) {}
}

/// No display: frames are drawn and thrown away, so the station runs headless without writing files.
public struct NullDisplay: Display {
    public let width: Int
    public let height: Int
    public var previewFramesPerSecond: Double { 0 }
    public init(width: Int = 800, height: Int = 480) {
        self.width = width
        self.height = height
    }
    public func present(_ frame: FramePixels, change: FrameChange) throws(DeviceError) {}
}
