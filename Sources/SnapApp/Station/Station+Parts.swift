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

/// The factories that choose each part's implementation from the config, once at start: the station
/// (`Station.run`) and `snapstation selftest` (`DeviceCheck`) build the devices through these alone.
extension Station {
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
                    selector: chosen.id, preview: preview, still: still, previewFPS: settings.previewFPS,
                    stillTimeout: .seconds(settings.stillSeconds)),
                logger: logger)
        case .v4l2:
            return V4L2Camera(
                settings: V4L2Camera.Settings(
                    device: chosen.id, preview: preview, still: still, previewFPS: settings.previewFPS,
                    stillTimeout: .seconds(settings.stillSeconds)),
                logger: logger)
        }
    }

    /// Chooses the implementation of each part from the config. A part that cannot be opened becomes its
    /// null version, and the reason is reported: the station runs with what it has.
    static func makeParts(_ config: StationConfig, store: StationStore, options: RunOptions, logger: Logger) throws
        -> StationParts
    {
        var missing: [DeviceError] = []
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
            if let key = config.key(.group)?.key {
                let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(120))
                let authorization: SupabaseBackend.Authorization =
                    config.group.email.isEmpty
                    ? .token(key)
                    : .session(supabaseSession(config, password: key, store: store, client: client, logger: logger))
                backend = SupabaseBackend(
                    projectURL: config.group.url, bucket: config.group.bucket, authorization: authorization,
                    anonKey: config.group.anonKey, client: client, logger: logger)
            } else {
                logger.error(
                    "no group key at \(config.group.keySource) nor entered on the page: photos stay queued until there is one"
                )
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
        parts.aiWait = .seconds(config.ai.waitSeconds)
        return parts
    }
}

extension Station {
    /// The station's Supabase Auth session: the refresh token kept from the last run, and each new one
    /// kept in the state folder (`supabase-session`, readable by the station's user alone) on the store's
    /// thread, written whole (temp file, fsync, rename) before its access token is used.
    static func supabaseSession(
        _ config: StationConfig, password: String, store: StationStore, client: HTTPClient, logger: Logger
    ) -> SupabaseSession {
        let path = config.supabaseSessionFile
        // A power cut while the last token was written leaves its temporary file: the kept one is whole.
        AtomicFile.removeLeftovers(of: path)
        let kept = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return SupabaseSession(
            projectURL: config.group.url, anonKey: config.group.anonKey,
            credentials: SupabaseSession.Credentials(email: config.group.email, password: password),
            refreshToken: kept?.isEmpty == false ? kept : nil, client: client, logger: logger,
            keep: { token in
                do {
                    try await store.keepFile(Array(token.utf8), at: path, permissions: 0o600)
                } catch {
                    logger.error("supabase: \(error); the next start signs in with the password")
                }
            })
    }

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

    /// The AI client the config describes, or nil when OpenAI's API is named and its key cannot be
    /// found. Another server (Ollama, llama.cpp, vLLM) may need no key: it is called without one when
    /// none is found, and never sent one over plain http beyond this machine.
    public static func makeAnalyzer(_ config: StationConfig, logger: Logger) -> (any MealAnalyzer)? {
        var settings = OpenAIAnalyzer.Settings(
            baseURL: config.ai.baseURL, model: config.ai.model, detail: config.ai.detail, key: "",
            dietary: config.ai.dietary)
        let host = URL(string: config.ai.baseURL)?.host ?? config.ai.baseURL
        let key = config.key(.ai)?.key
        if StationConfig.isSecureOrLocal(config.ai.baseURL) {
            settings.key = key ?? ""
        } else if key != nil {
            logger.notice("AI service at \(host) over plain http on the local network: the key is not sent")
        }
        if settings.key.isEmpty {
            guard URL(string: config.ai.baseURL)?.host?.lowercased() != "api.openai.com" else {
                logger.notice(
                    "no AI key at \(config.ai.keySource) nor entered on the page: meal mode says \"AI service not configured\""
                )
                return nil
            }
            logger.notice("AI service at \(host) without a key (a local server needs none)")
        }
        return OpenAIAnalyzer(
            settings: settings,
            client: HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(config.ai.timeoutSeconds)),
            logger: logger)
    }
}

/// The page's own certificate when `web.tls = "self-signed"` (made on the first start, then kept): for the
/// station's `.local` names and its addresses now.
func pageCertificate(_ config: StationConfig, logger: Logger) throws -> PageCertificate? {
    guard config.web.tls == .selfSigned else { return nil }
    let host = StationNames.machineHostName()
    let names = [StationNames.localName(config.station.name)] + (host.isEmpty ? [] : [host + ".local", host])
    let addresses = StationNames.interfaceAddresses().filter { !$0.hasPrefix("fe80") }.sorted()
    let certificate = try PageCertificate.kept(
        in: config.storage.dir + "/tls", names: names + ["localhost"], addresses: addresses)
    logger.notice("owner's page: certificate SHA-256 \(certificate.fingerprint)")
    return certificate
}

/// The page's try of the AI service: the client the config describes with the key in force at the moment
/// it is asked (`Station.makeAnalyzer`), so that a key just entered is the one tried, before the station
/// starts again with it.
struct StationAITrier: AIServiceTrier {
    let config: StationConfig
    let logger: Logger

    func tryService(_ service: AIService?) async -> AIServiceTrial {
        var config = config
        if let service {
            config.ai.baseURL = service.baseURL
            config.ai.model = service.model
        }
        guard let analyzer = Station.makeAnalyzer(config, logger: logger) as? OpenAIAnalyzer else {
            return .failed(.notConfigured)
        }
        return await analyzer.tryService()
    }
}
