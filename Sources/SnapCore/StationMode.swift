/// What a capture is for.
public enum StationMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Analyse the meal with the AI service and keep it in today's log.
    case meal
    /// Share the photo with the configured group, once per local day.
    case group

    /// The modes a station with `groups` has: meal always, group where a group is configured.
    public static func available(groups: [String]) -> [StationMode] {
        allCases.filter { $0 == .meal || !groups.isEmpty }
    }
}

/// What a person did with the buttons, after debouncing and timing.
public enum ButtonGesture: String, Sendable, Hashable, CaseIterable {
    /// The shutter button pressed and released before the long-press time.
    case press
    /// The shutter button held for the long-press time.
    case hold
    /// The optional mode button pressed.
    case mode
    /// A button kept down for 5 s: the pairing screen of the owner's page (after the hold it also was).
    case pairHold = "pair"
}
