import Foundation
import Logging
import ServiceLifecycle
import SnapConfig
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapScreens
import SnapServices
import SnapStore
import SnapWeb

/// Builds the station from a config and runs it until SIGTERM or SIGINT.
public enum Station {
    /// How `snapstation run` was asked to run.
    public struct RunOptions: Sendable {
        /// Replace every device with the simulated one (camera, buttons, headless display).
        public var simulate = false
        /// Read button words from standard input (simulated buttons only).
        public var standardInputButtons = true
        /// A button script that replaces `gpio.script`.
        public var script: String?

        public init(simulate: Bool = false, standardInputButtons: Bool = true, script: String? = nil) {
            self.simulate = simulate
            self.standardInputButtons = standardInputButtons
            self.script = script
        }
    }

    public static func run(config: StationConfig, options: RunOptions, logger: Logger) async throws {
        var startup = StartupTimes()
        let memory = MemoryPolicy.apply()
        if let problem = CrashReport.install() { logger.warning("\(problem)") }
        var config = config
        if options.simulate {
            config.camera.backend = .simulated
            config.gpio.backend = .simulated
            config.display.backend = .headless
        }
        if let script = options.script { config.gpio.script = script }

        let store = try StationStore(directory: config.storage.dir)
        startup.mark("store")
        let parts = try makeParts(config, store: store, options: options, logger: logger)
        startup.mark("devices")
        let aiConfigured = parts.aiConfigured
        let settings = config.stationSettings(aiConfigured: aiConfigured)
        let bus = EventBus()
        let notifier = SystemdNotifier()
        let clock = StationClock()
        let slot = PreviewSlot()
        let captures = CaptureCache()
        let reference = ReferenceFrame()
        let demand = CameraDemand()
        let renderer = ScreenRenderer(images: .disk(capture: { captures.image(for: $0) }))
        // A panel that could not be opened at start (another process held DRM master) is tried again.
        let panel = config.display
        let panelMissing =
            parts.missing.contains { $0.device == .display } && (panel.backend == .drm || panel.backend == .fbdev)
        let reopenPanel: @Sendable () throws(DeviceError) -> any Display = { () throws(DeviceError) in
            try openPanel(panel)
        }
        let display = DisplayService(
            display: parts.display, renderer: renderer, slot: slot, orientation: parts.pipeline.orientation,
            reopen: panelMissing ? reopenPanel : nil, recovered: { [bus] in bus.send(.device(.display, .available)) },
            logger: logger)
        parts.motion.connect { [display] in display.jar($0) }
        let uploads = UploadService(
            store: store, backend: parts.backend, bus: bus, logger: logger, stationName: config.station.name,
            shareSticker: config.processing.shareSticker)
        let orphans = try store.removeOrphanFiles()
        if orphans > 0 { logger.notice("removed \(orphans) photo file(s) a stop left without their record") }
        let interrupted = try store.requeueInterruptedAnalyses()
        if interrupted > 0 { logger.notice("\(interrupted) analysis(es) cut off by the last stop go to the queue") }
        // The owner's settings over the config's; one the config now locks is the config's again.
        let ownerSettings = settings.owner.kept(try store.runtimeSettings())
        if ownerSettings != RuntimeSettings() { logger.info("owner's settings: \(ownerSettings.summary)") }
        let live = LiveSettings(settings.owner.inForce(ownerSettings), pipeline: parts.pipeline)
        let analysisQueue =
            aiConfigured
            ? AnalysisQueueService(
                store: store, analyzer: parts.analyzer, bus: bus, logger: logger, dailyLimit: config.ai.dailyLimit,
                timeZone: config.resolvedTimeZone, dietary: { live.dietary }) : nil
        let board = config.web.enabled ? StationBoard(bus: bus, config: config) : nil
        let desk = config.web.enabled ? PairingDesk() : nil
        startup.mark("services")
        let station = StationService(
            settings: settings, parts: parts,
            minimumFreeBytes: UInt64(config.storage.minFreeMB) * 1_000_000,
            bus: bus, clock: clock, display: display, uploads: uploads, analysisQueue: analysisQueue,
            captures: captures, reference: reference, demand: demand, live: live, ownerSettings: ownerSettings,
            board: board,
            desk: desk, notifier: notifier, startup: startup, logger: logger)
        var services: [any Service] = [
            display, station, uploads,
            CameraService(camera: parts.camera, slot: slot, demand: demand, bus: bus, logger: logger),
            ButtonService(buttons: parts.buttons, bus: bus, logger: logger),
            RetentionService(
                store: store, backend: parts.backend, retention: .seconds(config.storage.retentionHours * 3600),
                stickerCapBytes: config.jar.stickerCapMB << 20,
                logger: logger),
        ]
        if !config.group.names.isEmpty {
            services.append(
                InboxService(
                    store: store, backend: parts.backend, groups: config.group.names, bus: bus, logger: logger,
                    interval: .seconds(config.group.inboxMinutes * 60)))
        }
        if let analysisQueue { services.append(analysisQueue) }
        if let board, let desk {
            let app = WebApp(
                config: config, store: store, link: board, desk: desk, logger: logger,
                secure: !config.web.tlsCertificate.isEmpty)
            services.append(WebServer(app: app, web: config.web, desk: desk, logger: logger))
        }
        if let interval = notifier.watchdogInterval {
            services.append(WatchdogService(interval: interval, bus: bus))
            logger.info("systemd watchdog: pinging from the event loop every \(interval / 2)")
        }
        if !config.jar.accelerometer.isEmpty {
            let sensor = IIOAccelerometer(
                folder: config.jar.accelerometer, quarterTurns: config.jar.accelerometerRotation.rawValue / 90)
            services.append(MotionService(sensor: sensor, relay: parts.motion, logger: logger))
        }
        if let hang = TestHang(logger: logger) { services.append(hang) }
        if parts.pipeline.sticker != nil {
            services.append(
                ReferenceService(
                    camera: parts.camera, demand: demand, display: display, frame: reference,
                    orientation: parts.pipeline.orientation, logger: logger))
        }
        logger.info(
            "starting",
            metadata: [
                "memory": "\(memory)",
                "state": "\(config.storage.dir)", "camera": "\(config.camera.backend.rawValue)",
                "buttons": "\(config.gpio.backend.rawValue)", "display": "\(config.display.backend.rawValue)",
                "group":
                    "\(config.group.names.isEmpty ? "-" : config.group.names.joined(separator: ", ")) (\(config.group.backend.rawValue))",
            ])
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The camera `chosen` names, with the sizes and frame rate of `settings`. One that cannot be made is
    /// the null camera, which says why when it is used.
    static func makeCamera(_ chosen: StationConfig.Camera.Other, _ settings: StationConfig.Camera, logger: Logger)
        -> any Camera
    {
        let preview = (settings.previewWidth, settings.previewHeight)
        let still = (settings.stillWidth, settings.stillHeight)
        switch chosen.backend {
        case .simulated:
            do {
                return try SimulatedCamera(
                    previewSize: preview, stillSize: still, framesPerSecond: settings.previewFPS,
                    source: settings.simulatedSource, scene: TestScene.cameraScene)
            } catch {
                return NullCamera(reason: error.message)
            }
        case .none:
            return NullCamera(reason: "camera.backend is \"none\"")
        case .libcamera:
            return LibcameraCamera(
                settings: LibcameraCamera.Settings(
                    selector: chosen.id, preview: preview, still: still, previewFPS: settings.previewFPS),
                logger: logger)
        case .v4l2:
            return V4L2Camera(
                settings: V4L2Camera.Settings(
                    device: chosen.id, preview: preview, still: still, previewFPS: settings.previewFPS),
                logger: logger)
        }
    }

    /// Chooses the implementation of each part from the config. A part that cannot be opened becomes its
    /// null version, and the reason is reported: the station runs with what it has.
    static func makeParts(_ config: StationConfig, store: StationStore, options: RunOptions, logger: Logger) throws
        -> StationParts
    {
        var missing: [DeviceError] = []
        func unavailable(_ kind: DeviceKind, _ backend: String) -> String {
            let reason = "\(kind.rawValue) backend \"\(backend)\" is not available in this build"
            missing.append(DeviceError(kind, reason))
            logger.error("\(reason)")
            return reason
        }

        // Every camera named; several become one that switches (the menu, the owner's page).
        let cameras = config.camera.all.map { chosen in
            CameraSwitch.Choice(
                name: chosen.name,
                camera: makeCamera(chosen, config.camera, logger: logger))
        }
        let cameraSwitch = cameras.count > 1 ? CameraSwitch(cameras) : nil

        let motion = MotionRelay()
        let buttons: any Buttons
        let flash: any FlashLED
        switch config.gpio.backend {
        case .simulated:
            buttons = SimulatedButtons(
                script: ButtonScript(config.gpio.script) ?? ButtonScript("")!,
                readStandardInput: options.standardInputButtons, motion: motion,
                logger: logger)
            flash = SimulatedFlash(logger: logger)
        case .none:
            buttons = NullButtons()
            flash = NullFlash()
        case .gpiod:
            (buttons, flash) = gpioParts(config.gpio, missing: &missing, logger: logger)
        }

        let display: any Display
        switch config.display.backend {
        case .headless:
            do {
                display = try HeadlessDisplay(
                    width: config.display.width, height: config.display.height, folder: config.framesDirectory,
                    previewFramesPerSecond: config.display.previewPNGFPS)
            } catch {
                missing.append(error)
                display = NullDisplay(width: config.display.width, height: config.display.height)
            }
        case .none: display = NullDisplay(width: config.display.width, height: config.display.height)
        case .drm, .fbdev:
            do {
                display = try openPanel(config.display)
                logger.info(
                    "display \(display.width)x\(display.height)", metadata: ["backend": "\(config.display.backend)"])
            } catch {
                logger.error("\(error)")
                missing.append(error)
                display = NullDisplay(width: config.display.width, height: config.display.height)
            }
        }

        let analyzer = makeAnalyzer(config, logger: logger)
        let backend: any GroupBackend
        switch config.group.backend {
        case .folder: backend = FolderBackend(folder: config.outboxDirectory, station: config.station.name)
        case .supabase:
            if let key = config.group.keySource.resolve() {
                backend = SupabaseBackend(
                    projectURL: config.group.url, bucket: config.group.bucket, key: key, anonKey: config.group.anonKey,
                    client: HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(120)), logger: logger)
            } else {
                logger.error("no group key at \(config.group.keySource): photos stay queued until there is one")
                backend = OfflineBackend()
            }
        }
        try? AtomicFile.createFolder(config.outboxDirectory)

        let processing = config.processing
        let inFile = config.settingsRule.defaults
        let pipeline = PhotoPipeline(
            orientation: Orientation(
                quarterTurns: config.camera.rotation.rawValue / 90, mirrored: config.camera.hflip,
                flipped: config.camera.vflip),
            maxSide: processing.maxSize, quality: processing.quality, thumbnailSide: processing.thumbnailSize,
            filter: inFile.photoFilter, intensity: inFile.intensity,
            gate: processing.qualityGate
                ? QualityGate(minBrightness: processing.minBrightness, minSharpness: processing.minSharpness) : nil,
            sticker: processing.sticker ? StickerMaker(outline: processing.stickerOutline) : nil)
        var parts = StationParts(
            camera: cameraSwitch ?? cameras[0].camera, buttons: buttons, flash: flash, display: display,
            analyzer: analyzer ?? UnconfiguredAnalyzer(), aiConfigured: analyzer != nil,
            backend: backend, store: store, pipeline: pipeline, missing: missing)
        parts.motion = motion
        parts.cameraSwitch = cameraSwitch
        return parts
    }
}

extension Station {
    /// The DRM/KMS or framebuffer panel the config names.
    static func openPanel(_ settings: StationConfig.Display) throws(DeviceError) -> any Display {
        settings.backend == .drm
            ? try DRMDisplay(card: settings.device, connector: settings.connector, rotation: settings.rotation.rawValue)
            : try FramebufferDisplay(
                path: settings.device.isEmpty ? "/dev/fb0" : settings.device, rotation: settings.rotation.rawValue)
    }

    /// The GPIO buttons and flash LED. Each one that cannot be had is reported and replaced by its null
    /// version: a station without its LED still takes photos, and one without buttons still shows the
    /// screens.
    static func gpioParts(_ gpio: StationConfig.GPIO, missing: inout [DeviceError], logger: Logger) -> (
        any Buttons, any FlashLED
    ) {
        var buttons: any Buttons = NullButtons()
        if let shutter = gpio.shutterLine {
            buttons = GPIOButtons(
                settings: GPIOButtonSettings(
                    chip: gpio.chip, shutter: shutter, mode: gpio.modeLine, activeLow: gpio.activeLow, bias: gpio.bias,
                    debounce: .milliseconds(gpio.debounceMS), longPress: .milliseconds(gpio.longPressMS)),
                logger: logger)
        } else {
            let error = DeviceError(.buttons, "gpio.shutter_line is empty: no shutter button is wired")
            logger.error("\(error)")
            missing.append(error)
        }
        var flash: any FlashLED = NullFlash()
        if let led = gpio.ledLine {
            do {
                flash = try GPIOFlash(chip: gpio.chip, line: led)
            } catch {
                logger.error("\(error)")
                missing.append(error)
            }
        }
        return (buttons, flash)
    }

    /// The AI client the config describes, or nil when its key cannot be found.
    public static func makeAnalyzer(_ config: StationConfig, logger: Logger) -> (any MealAnalyzer)? {
        guard let key = config.ai.keySource.resolve() else {
            logger.notice("no AI key at \(config.ai.keySource): meal mode says \"AI service not configured\"")
            return nil
        }
        return OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(
                baseURL: config.ai.baseURL, model: config.ai.model,
                detail: config.ai.detail, key: key,
                dietary: config.ai.dietary),
            client: HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(config.ai.timeoutSeconds)),
            logger: logger)
    }
}

/// A backend that cannot be reached: jobs stay queued, nothing is lost.
struct OfflineBackend: GroupBackend {
    func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void) async throws(UploadFailure) {
        throw .offline
    }
    func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem] { throw .offline }
    func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8] {
        throw .offline
    }
    func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID] { throw .offline }
}
