import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapDevices
import SnapFiles
import SnapImaging
import SnapServices
import SnapStore
import SnapWeb
import Synchronization

/// The station's loop: drains the event bus into the state machine and carries out its actions.
///
/// Quick actions (show, flash, timers, store writes) run inline, in order; slow ones (capture, the
/// pipeline, analysis) run as child tasks that report back through the bus.
public final class StationService: Service {
    let settings: StationSettings
    let parts: StationParts
    /// Below this much free space a capture is refused as "storage full" before it is written.
    let minimumFreeBytes: UInt64
    let bus: EventBus
    let clock: StationClock
    let display: DisplayService
    let uploads: UploadService
    /// Sends the machine's notices; nil in tests that have none.
    let notices: NoticeService?
    /// The station in the home's hub (`[mqtt]`); nil without a broker.
    let home: HomeService?
    let analysisQueue: AnalysisQueueService?
    let captures: CaptureCache
    let reference: ReferenceFrame
    /// The station's hold on the camera (`Action.setCamera`), which a capture waits on.
    let demand: CameraDemand
    /// Where the start went, logged at the first screen.
    let startup: StartupTimes
    let logger: Logger
    let notifier: SystemdNotifier
    /// The machine's timers, on a thread of their own (`TimerThread` says why not a task each).
    let timers: TimerThread<TimerID>
    /// Why the flash LED failed last, until it works again.
    let flashMissing = Lock<String?>(nil)
    /// How long events waited in the bus before the loop took them.
    let loopWaits = Lock(LatencyStats())
    /// The photo pipeline's own thread: 100 ms and more of decoding and resizing per photo, which would
    /// otherwise hold one of the pool's two threads while a press waits for the other.
    let pipelineThread = SerialThread(name: "pipeline")
    let analysisTasks = TaskRegistry<PhotoID>()
    /// The owner's settings where the shell needs them (the pipeline's filter, the AI's dietary hint).
    let live: LiveSettings
    /// What the owner's page reads of the station; nil without a page.
    let board: StationBoard?
    /// The pairing codes of the owner's page; nil without a page.
    let desk: PairingDesk?
    /// The owner's settings stored before this start, applied as the loop starts.
    let ownerSettings: RuntimeSettings
    /// Created to ask for the restart into an installed update (`update.restart_file`).
    let restartFile: String

    public init(
        settings: StationSettings, parts: StationParts, minimumFreeBytes: UInt64, bus: EventBus, clock: StationClock,
        display: DisplayService, uploads: UploadService, analysisQueue: AnalysisQueueService?, captures: CaptureCache,
        reference: ReferenceFrame, demand: CameraDemand, live: LiveSettings,
        ownerSettings: RuntimeSettings = RuntimeSettings(),
        board: StationBoard? = nil, desk: PairingDesk? = nil, notices: NoticeService? = nil, home: HomeService? = nil,
        notifier: SystemdNotifier = SystemdNotifier(environment: [:]), startup: StartupTimes = StartupTimes(),
        restartFile: String = "/run/snapstation/reboot", logger: Logger
    ) {
        self.restartFile = restartFile
        self.notices = notices
        self.home = home
        self.live = live
        self.ownerSettings = ownerSettings
        self.board = board
        self.desk = desk
        self.settings = settings
        self.parts = parts
        self.minimumFreeBytes = minimumFreeBytes
        self.bus = bus
        self.clock = clock
        self.timers = TimerThread(name: "timers", clock: clock.shell)
        self.display = display
        self.uploads = uploads
        self.analysisQueue = analysisQueue
        self.captures = captures
        self.reference = reference
        self.demand = demand
        self.startup = startup
        self.notifier = notifier
        self.logger = logger
    }

    public func run() async throws {
        let today = LocalDay(containing: clock.now().wall, in: settings.timeZone)
        let groups = settings.owner.inForce(ownerSettings).groups
        let snapshot = try parts.store.snapshot(
            groups: groups, day: today, mealDays: max(StationMachine.weekDays, settings.jarDays))
        var machine = StationMachine(settings: settings, snapshot: snapshot, owner: ownerSettings)
        logger.info(
            "station ready",
            metadata: ["mode": "\(machine.mode.rawValue)", "day": "\(today)", "ai": "\(settings.aiConfigured)"])
        defer {
            timers.shutDown()
            analysisTasks.cancelAll()
        }
        await withDiscardingTaskGroup { group in
            var lastScreen = ""
            let perform = { (actions: [Action], group: inout DiscardingTaskGroup) in
                for action in actions { self.perform(action, lastScreen: &lastScreen, in: &group) }
            }
            perform(machine.start(now: clock.now()), &group)
            for problem in parts.missing {
                bus.send(.device(problem.device, .missing(problem.message)))
            }
            board?.note(machine)
            home?.note(nil, machine: machine)
            await withGracefulShutdownHandler {
                for await stamped in bus.stamped {
                    let event = stamped.event
                    loopWaits.withLock { $0.record(.now - stamped.sent, label: "\(event)".prefix(60).description) }
                    perform(machine.handle(event, now: clock.now()), &group)
                    if event == .heartbeat { notifier.send("WATCHDOG=1") }
                    board?.note(machine, ticket: stamped.ticket)
                    home?.note(event, machine: machine)
                }
            } onGracefulShutdown: { [bus] in
                bus.finish()
            }
            group.cancelAll()
        }
        board?.stopped()
        try? parts.flash.set(on: false)
        notifier.send("STOPPING=1")
        logger.info("event loop: \(loopWaits.withLock { $0 }.summary("events waited for the loop"))")
        logger.info("display: \(display.presentWaits.summary("screens from show to presented"))")
        logger.info("station stopped")
    }
}
