/// The station's timers. Each has at most one pending deadline; starting one replaces the old deadline.
public enum TimerID: String, Sendable, Hashable, CaseIterable {
    /// One tick per second of the 3-2-1.
    case countdown
    /// One tick per second of "Sending to {group} in 3…".
    case groupReview
    /// One tick per second of the meal result's auto-save count.
    case mealAutoSave
    /// How long "Sent" stays before the lock screen.
    case sentLinger
    /// Redraws the lock screen's countdown and releases the lock at midnight.
    case lockTick
    /// Leaves an error screen that needs no answer (network down: the capture is queued).
    case problemDismiss
    /// On the ready screen, its next change, whichever comes first: local midnight (today's totals start
    /// again), the idle time (the idle screen), or the end of the jar's sticker details.
    case readyChange
    /// On the idle screen: the next photo of the slideshow, and the check for a new day.
    case slideshow
    /// Redraws the pairing screen's countdown and closes it when the code expires.
    case pairing
    /// Closes the settings menu nobody touches.
    case menu
    /// Closes the week's screen nobody touches.
    case week
    /// One tick per second of the factory reset's confirmation, which keeps everything when it runs out.
    case resetConfirm
    /// The owner's reminder of the day's group photo (`notify.reminder`), once a day at its local time.
    /// The one timer that is not a screen's: a new screen leaves it running.
    case photoDue

    /// Whether the timer belongs to the screen it was started on, so that leaving the screen cancels it.
    var followsThePhase: Bool { self != .photoDue }
}
