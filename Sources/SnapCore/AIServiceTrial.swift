/// The AI service tried at once with one small request, as the owner enters its key or address on the
/// page: it answers (and offers the model the station asks for, or not), or why not, in the service's own
/// words where it gave them.
public enum AIServiceTrial: Sendable, Hashable {
    /// It answered: whether it offers `model`, and a few of those it does (sorted, at most five).
    case works(model: String, offered: Bool, others: [String])
    /// It answered with a refusal: its HTTP status and its own words (never the key).
    case refused(status: Int, words: String)
    /// It was not reached, or its answer could not be read.
    case failed(AIFailure)
}

/// Tries an AI service with the key in force now (`AIServiceTrial`).
public protocol AIServiceTrier: Sendable {
    /// Tries `service` (the address and model the owner just entered), or the one the station uses (nil).
    func tryService(_ service: AIService?) async -> AIServiceTrial
}
