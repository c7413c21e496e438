import SnapCore
import SnapFiles
import SnapImaging
import SnapText
import Synchronization

/// The owner's settings in force where the shell's services read them while the station runs (the photo
/// pipeline's filter, the AI's dietary preferences). The state machine resolves them (`SettingsRule`) and
/// tells this with `.applySettings`; at start the station resolves the stored ones the same way.
public final class LiveSettings: Sendable {
    private let inForce: Lock<SettingsInForce>
    private let basePipeline: PhotoPipeline

    public init(_ inForce: SettingsInForce, pipeline: PhotoPipeline) {
        self.inForce = Lock(inForce)
        self.basePipeline = pipeline
    }

    public func update(_ settings: SettingsInForce) { inForce.withLock { $0 = settings } }

    /// The photo pipeline with the filter and intensity in force.
    public var pipeline: PhotoPipeline {
        let settings = inForce.withLock { $0 }
        var pipeline = basePipeline
        pipeline.intensity = settings.intensity
        pipeline.filter = settings.photoFilter
        return pipeline
    }

    public var dietary: [DietaryPreference] { inForce.withLock { $0.sortedDietary } }

    /// The groups the station shares with now (the owner's page makes, joins and leaves them).
    public var groups: [String] { inForce.withLock { $0.groups } }

    /// The language the station speaks now: its screens, and the AI's answers.
    public var language: Language { inForce.withLock { $0.language } }

    /// The daily goals in force (each 0 for none).
    public var goals: Macros { inForce.withLock { $0.goals } }

    /// Where the notices go and which, with the language they are written in.
    public var notices: (NoticeSettings, Language) { inForce.withLock { ($0.notices, $0.language) } }
}
