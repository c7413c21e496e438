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
import SnapText
import SnapUpdates
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

    /// The page a notice opens: `web.public_url`, else the station's `.local` name; none without the page.
    static func noticePage(_ config: StationConfig) -> String? {
        guard config.web.enabled else { return nil }
        if !config.web.publicURL.isEmpty { return config.web.publicURL }
        let scheme = config.web.servesHTTPS ? "https" : "http"
        return "\(scheme)://\(StationNames.localName(config.station.name)):\(config.web.port)/"
    }

    /// The station in the home's hub, where `[mqtt]` names a broker.
    static func homeService(
        _ config: StationConfig, store: StationStore, live: LiveSettings, bus: EventBus, aiConfigured: Bool,
        clock: any ShellClock, logger: Logger
    ) -> HomeService? {
        guard let broker = config.mqtt.broker.broker else { return nil }
        let discovery = HomeDiscovery(
            prefix: config.mqtt.discoveryPrefix, stationName: config.station.name, version: StationVersion.current,
            page: noticePage(config))
        let settings = MQTTLink.Settings(
            broker: broker, username: config.mqtt.broker.username,
            password: config.brokerPassword(for: config.mqtt.broker),
            version: config.mqtt.broker.version, caFile: config.mqtt.caFile, clientID: discovery.node)
        let minFree = UInt64(config.storage.minFreeMB) * 1_000_000
        logger.info("home: Home Assistant's discovery at \(config.mqtt.broker.address) as \(discovery.node)")
        return HomeService(
            settings: settings, discovery: discovery, store: store, live: live, bus: bus,
            timeZone: config.resolvedTimeZone, dailyLimit: aiConfigured ? config.ai.dailyLimit : nil,
            displaySide: max(config.display.width, config.display.height),
            storage: (minFree, max(2 * minFree, 500_000_000)), countdownButton: config.mqtt.broker.countdownButton,
            logger: logger, clock: clock)
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

        // A factory reset confirmed at the station erases the state folder before the store opens (a restore
        // waiting in it goes too).
        if let erased = try StationStore.applyErase(in: config.storage.dir) {
            logger.notice(
                "factory reset: erased \(erased.joined(separator: ", ")) in \(config.storage.dir); starting as new")
        }
        // A backup the owner restored on the page (and confirmed at the station) goes in place before the
        // store opens; one that could not be put in place leaves the station as it was.
        if let outcome = StationStore.applyRestore(in: config.storage.dir) {
            let restore = outcome.restore
            if let problem = outcome.problem {
                logger.error("the backup made by SnapStation \(restore.version) was not restored: \(problem)")
            } else {
                logger.notice(
                    "restored the backup made by SnapStation \(restore.version) (\(restore.report.summary))")
            }
        }
        let store = try StationStore(directory: config.storage.dir)
        startup.mark("store")
        // The time zone and the AI service the owner chose on the page, over the file's (where it does not
        // lock them): the station's days and its AI client are made with them.
        config = config.starting(with: try store.runtimeSettings())
        // Keys entered before they went only to their own address: theirs is the one in force now.
        for name in [EnteredKeys.Name.ai, .mqtt] {
            config.enteredKeys.bindUnbound(name, to: config.keyAddress(name).flatMap(KeyDestination.init))
        }
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
        let demand = CameraDemand(clock: clock.shell)
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
        let renderer = ScreenRenderer(
            images: .disk(capture: { captures.image(for: $0) }), words: Words(live.language))
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
            logger: logger, clock: clock.shell)
        parts.motion.connect { [display] in display.jar($0) }
        let analysisQueue =
            aiConfigured
            ? AnalysisQueueService(
                store: store, analyzer: parts.analyzer, bus: bus, logger: logger, dailyLimit: config.ai.dailyLimit,
                timeZone: config.resolvedTimeZone, dietary: { live.dietary },
                language: { live.language }) : nil
        let board = config.web.enabled ? StationBoard(bus: bus, config: config, owner: ownerSettings) : nil
        let desk = config.web.enabled ? PairingDesk() : nil
        let notices = NoticeService(
            station: config.station.name, page: noticePage(config),
            settings: { live.notices }, logger: logger)
        let home = homeService(
            config, store: store, live: live, bus: bus, aiConfigured: aiConfigured, clock: clock.shell, logger: logger)
        startup.mark("services")
        let station = StationService(
            settings: settings, parts: parts,
            minimumFreeBytes: UInt64(config.storage.minFreeMB) * 1_000_000,
            bus: bus, clock: clock, display: display, uploads: uploads, analysisQueue: analysisQueue,
            captures: captures, reference: reference, demand: demand, live: live, ownerSettings: ownerSettings,
            board: board,
            desk: desk, notices: notices, home: home, notifier: notifier, startup: startup,
            restartFile: config.update.restartFile,
            logger: logger)
        let updater = SlotUpdater(
            rauc: config.update.rauc, folder: config.storage.dir + "/updates", logger: logger,
            backup: { try store.keepBackup() })
        var services: [any Service] = [
            display, station, uploads, notices,
            CameraService(camera: parts.camera, slot: slot, demand: demand, bus: bus, logger: logger),
            ButtonService(buttons: parts.buttons, bus: bus, logger: logger),
            RetentionService(
                store: store, backend: parts.backend, retention: .seconds(config.storage.retentionHours * 3600),
                stickerCapBytes: config.jar.stickerCapMB << 20,
                // Nearly full: less than twice the free space captures need, and never under 500 MB.
                low: (max(2 * UInt64(config.storage.minFreeMB) * 1_000_000, 500_000_000), bus), logger: logger),
        ]
        // Always: the owner may join a first group on the page.
        services.append(
            InboxService(
                store: store, backend: parts.backend, groups: { live.groups }, bus: bus, logger: logger,
                interval: .seconds(config.group.inboxMinutes * 60), clock: clock.shell))
        services.append(
            UpdateService(
                updater: updater, bus: bus, confirmAfter: .seconds(config.update.confirmSeconds), logger: logger,
                clock: clock.shell))
        if let analysisQueue { services.append(analysisQueue) }
        if let home { services.append(home) }
        if let board, let desk {
            let names = StationNames(config: config)
            // The page's long work (the AI, RAUC, the group's server) is a service like the others: SIGTERM
            // cancels it, and the station stops within its stop timeout.
            let jobs = PageJobs(logger: logger, clock: clock.shell)
            var brokerStatus: (@Sendable () -> BrokerStatus)?
            if let home { brokerStatus = { home.status } }
            services.append(jobs)
            let app = WebApp(
                config: config, store: store, link: board, desk: desk, logger: logger,
                secure: config.web.servesHTTPS, directory: parts.backend as? any GroupDirectory, names: names,
                corrector: aiConfigured ? StationCorrector(analyzer: parts.analyzer, live: live) : nil,
                planner: aiConfigured ? StationPlanner(analyzer: parts.analyzer, live: live) : nil, updater: updater,
                trier: StationAITrier(config: config, logger: logger),
                accounts: config.group.backend == .supabase
                    ? SupabaseAccounts(
                        projectURL: config.group.url, anonKey: config.group.anonKey,
                        client: HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(30)), logger: logger)
                    : nil, noticeTrier: notices, broker: brokerStatus,
                brokerTrier: StationBrokerTrier(config: config, logger: logger, clock: clock.shell), jobs: jobs,
                kitchen: StationPageMeals(
                    store: store, live: live, thread: station.pipelineThread, analyzer: parts.analyzer,
                    minimumFreeBytes: station.minimumFreeBytes, wait: parts.aiWait, clock: clock.shell))
            do {
                let selfSigned = try pageCertificate(config, logger: logger)
                let server = WebServer(app: app, web: config.web, desk: desk, logger: logger, selfSigned: selfSigned)
                services.append(server)
                // The .local name, unless the config names the page's address itself.
                if config.web.publicURL.isEmpty && config.web.address != "127.0.0.1" {
                    services.append(
                        LocalNameService(config: config, desk: desk, server: server, names: names, logger: logger))
                }
            } catch {
                logger.error("owner's page: not served: \(error)")
            }
        }
        if let interval = notifier.watchdogInterval {
            services.append(WatchdogService(interval: interval, bus: bus, clock: clock.shell))
            logger.info("systemd watchdog: pinging from the event loop every \(interval / 2)")
        }
        if !config.jar.accelerometer.isEmpty {
            let sensor = IIOAccelerometer(
                folder: config.jar.accelerometer, quarterTurns: config.jar.accelerometerRotation.rawValue / 90)
            services.append(MotionService(sensor: sensor, relay: parts.motion, logger: logger, clock: clock.shell))
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
                    "\(live.groups.isEmpty ? "-" : live.groups.joined(separator: ", ")) (\(config.group.backend.rawValue))",
            ])
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
