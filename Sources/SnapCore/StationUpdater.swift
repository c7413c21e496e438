/// What the station says about an update, on its display and the owner's page.
public enum UpdateNote: Sendable, Hashable {
    /// A bundle is being written into the other slot: its version, and how far (0…100).
    case installing(version: String, percent: Int)
    /// Installed into the other slot: the station restarts into it at its next idle moment.
    case restarting(version: String)
    /// The slot an update was installed into did not start; the old one runs again.
    case rolledBack(tried: String, running: String)
}

/// The two system slots as the updater sees them, for the page, `snapstation update status` and the
/// system test. Codable: `update status --json` writes it.
public struct UpdateStatus: Sendable, Hashable, Codable {
    public struct Slot: Sendable, Hashable, Codable {
        /// RAUC's slot name ("rootfs.0") and the bootloader's ("A").
        public var name: String
        public var bootname: String
        /// "booted", "active" or "inactive", as RAUC says.
        public var state: String
        /// Whether the bootloader holds the slot good (RAUC's `boot_status`).
        public var bootGood: Bool
        /// The version it holds: the bundle's RAUC installed into it, else the running image's (booted) or
        /// the one the station confirmed it with; nil for an image's own slot the station never ran.
        public var version: String?
        public init(name: String, bootname: String, state: String, bootGood: Bool, version: String?) {
            self.name = name
            self.bootname = bootname
            self.state = state
            self.bootGood = bootGood
            self.version = version
        }
    }

    /// An update installed into the other slot, waiting for the restart into it.
    public struct Pending: Sendable, Hashable, Codable {
        public var slot: String
        public var version: String
        public init(slot: String, version: String) {
            self.slot = slot
            self.version = version
        }
    }

    /// Whether this system has two slots RAUC manages (false on a development machine, an old image).
    public var managed: Bool
    /// The running system's version.
    public var version: String
    /// The booted slot's and the primary slot's bootnames ("A", "B").
    public var booted: String?
    public var primary: String?
    /// The station marked the booted slot good (it ran long enough); until then a restart may go back.
    public var confirmed: Bool
    public var slots: [Slot]
    public var pending: Pending?
    /// How the last update ended; nil before any.
    public var outcome: UpdateOutcome?
    /// Why the slots could not be read, where `managed` is false for a reason worth saying.
    public var problem: String?

    public init(
        managed: Bool, version: String, booted: String? = nil, primary: String? = nil, confirmed: Bool = false,
        slots: [Slot] = [], pending: Pending? = nil, outcome: UpdateOutcome? = nil, problem: String? = nil
    ) {
        self.managed = managed
        self.version = version
        self.booted = booted
        self.primary = primary
        self.confirmed = confirmed
        self.slots = slots
        self.pending = pending
        self.outcome = outcome
        self.problem = problem
    }
}

/// How the last update ended: the page and the display say it in the person's words, the log and
/// `snapstation update status` in the installer's (`description`).
public enum UpdateOutcome: Sendable, Hashable, Codable, CustomStringConvertible {
    case updated(version: String, from: String)
    case rolledBack(tried: String, running: String)

    public var description: String {
        switch self {
        case .updated(let version, let from): "updated to \(version) (from \(from))"
        case .rolledBack(let tried, let running): "the update to \(tried) did not start — running \(running) again"
        }
    }
}

/// Why an update was not installed; the installer's or RAUC's own words where it gave them.
public enum UpdateFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// This system has no two slots (no RAUC, or not set up).
    case notManaged(String)
    /// The running slot is not confirmed yet: installing now could leave no good slot to go back to.
    case unconfirmed
    /// An install is already running.
    case busy
    /// The bundle holds `bundle`, older than the `running` system: installed only when the owner asks for
    /// it (`allowDowngrade`).
    case older(bundle: String, running: String)
    /// RAUC refused the bundle or the install failed: its words.
    case refused(String)
    /// The backup made before every install could not be made (why): nothing was installed.
    case noBackup(String)

    public var description: String {
        switch self {
        case .notManaged(let why): "updates are not set up on this station: \(why)"
        case .unconfirmed:
            "the running system is not confirmed yet: wait until it has run a few minutes, then install again"
        case .busy: "an update is being installed already"
        case .older(let bundle, let running): "this bundle holds \(bundle), older than the \(running) that runs"
        case .refused(let why): why
        case .noBackup(let why): "no backup could be made before the install, so nothing was installed: \(why)"
        }
    }
}

/// The station's two system slots: what they hold, and installing a signed bundle into the other one.
/// The one function an update client (the page, `snapstation update`, a fleet agent) calls is `install`.
public protocol StationUpdater: Sendable {
    /// The running system's version as its image says it (cheap: no call to RAUC).
    var systemVersion: String { get }
    func status() async -> UpdateStatus
    /// The status, read on the calling thread (it blocks for RAUC's answer): for a caller with a thread
    /// of its own, such as the page's, which must not wait on the concurrency pool.
    func currentStatus() -> UpdateStatus
    /// Installs the bundle at `path` into the slot not running, reporting progress (the bundle's version,
    /// percent, RAUC's step); the installed version. The restart into it is the station's, at an idle moment.
    /// A bundle older than the running system (`SemanticVersion`) is refused (`.older`) before anything is
    /// written, unless `allowDowngrade`: the owner asked for that older version.
    func install(
        bundle path: String, allowDowngrade: Bool, progress: @escaping @Sendable (String, Int, String) -> Void
    ) async throws(UpdateFailure) -> String
}
