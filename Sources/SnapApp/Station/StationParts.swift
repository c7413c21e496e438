import Foundation
import Logging
import SnapCore
import SnapDevices
import SnapImaging
import SnapServices
import SnapStore

/// Everything the station runs with, chosen at start from the config: the devices, the services and
/// the store. Simulated, real and null parts all fit the same slots.
public struct StationParts: Sendable {
    public var camera: any Camera
    public var buttons: any Buttons
    public var flash: any FlashLED
    public var display: any Display
    public var analyzer: any MealAnalyzer
    /// An AI key was found: meal mode can analyse. Without one, `analyzer` is the unconfigured one.
    public var aiConfigured: Bool
    /// How long the person at the station waits for an analysis (`ai.wait_seconds`); past it the meal
    /// goes to the delayed queue.
    public var aiWait: Duration = .seconds(20)
    public var backend: any GroupBackend
    public var store: StationStore
    public var pipeline: PhotoPipeline
    /// Devices found missing while the parts were built, reported to the state machine at start.
    public var missing: [DeviceError]
    /// The jar's tilt and shake, from the simulated buttons (or an accelerometer) to the display.
    public var motion = MotionRelay()
    /// Where the config names several cameras: `camera` is this switch, and `.useCamera` selects in it.
    public var cameraSwitch: CameraSwitch?

    public init(
        camera: any Camera, buttons: any Buttons, flash: any FlashLED, display: any Display, analyzer: any MealAnalyzer,
        aiConfigured: Bool, backend: any GroupBackend, store: StationStore, pipeline: PhotoPipeline,
        missing: [DeviceError] = []
    ) {
        self.camera = camera
        self.buttons = buttons
        self.flash = flash
        self.display = display
        self.analyzer = analyzer
        self.aiConfigured = aiConfigured
        self.backend = backend
        self.store = store
        self.pipeline = pipeline
        self.missing = missing
    }
}
