import Foundation

/// Why an AI analysis failed, one case per thing the person or installer can act on (the classes of
/// docs/ai-service.md, as OpenAI, llama.cpp, Ollama and vLLM answer).
public enum AIFailure: Sendable, Hashable, Error {
    /// No key or no base URL in the config.
    case notConfigured
    /// The service refused the key (HTTP 401).
    case unauthorized
    /// Too many requests (HTTP 429 `rate_limit_exceeded`); `retryAfter` is when the service said to come
    /// back (`retry-after-ms`, `retry-after`, or the spent limit's `x-ratelimit-reset-*`).
    case rateLimited(retryAfter: Duration?)
    /// The account behind the key has no credit left (HTTP 429 `insufficient_quota`): waiting does not help.
    case noCredit
    /// The model named in `ai.model` does not exist or this key may not use it (HTTP 404, or 403
    /// `model_not_found`).
    case modelUnavailable(String)
    /// The service does not serve the country the station calls from (HTTP 403
    /// `unsupported_country_region_territory`).
    case regionNotSupported
    /// The model cannot take images: a text model, or llama.cpp's server started without a vision
    /// projector ("image input is not supported").
    case cannotSeeImages
    /// The service could not read this photo (HTTP 400 `image_parse_error`, `invalid_image_format`).
    case photoUnreadable
    /// The service refused the request itself (another HTTP 4xx): its own words, for the installer.
    case requestRefused(String)
    /// The service failed (HTTP 5xx).
    case serverError(status: Int)
    /// No answer in time.
    case timedOut
    /// The network or the host is unreachable.
    case offline
    /// The connection broke mid-exchange (reset, or closed with nothing).
    case connectionLost
    /// The service's TLS certificate could not be verified: a wrong clock, or not the real service.
    case untrusted(String)
    /// The model declined the photo: a refusal, the content filter, or an answer with no content. The
    /// reason is for the log.
    case refused(String)
    /// The answer was not the JSON the schema asks for, or failed validation.
    case malformedAnswer(String)
    /// The photo could not be read to send it.
    case badPhoto(String)

    /// The service answered (and billed the request), but with a refusal or nothing readable: it counts
    /// against the day's limit like a meal.
    public var cameFromAnAnswer: Bool {
        switch self {
        case .refused, .malformedAnswer: true
        default: false
        }
    }

    /// Trying the same request again later may succeed: the network, the service's load, a rate limit, a
    /// clock not yet set. The delayed-analysis queue backs off and tries again; every other failure ends
    /// the job with its reason (the photo stays, and the page can ask again).
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .serverError, .timedOut, .offline, .connectionLost, .untrusted: true
        case .notConfigured, .unauthorized, .noCredit, .modelUnavailable, .regionNotSupported, .cannotSeeImages,
            .photoUnreadable, .requestRefused, .refused, .malformedAnswer, .badPhoto:
            false
        }
    }

    /// The person at the station is not kept waiting for it: the meal goes to the delayed-analysis queue
    /// and its result shows when the service answers (no network, or no answer within the person's time).
    public var waitsInQueue: Bool {
        switch self {
        case .offline, .timedOut: true
        default: false
        }
    }

    /// The failure whose English `message` this is, for a reason the analysis queue stored in the log's
    /// words: the status page names it in the page's language. nil for a sentence that carries its own
    /// words (a model, an HTTP status, the service's refusal), which the page shows as it is.
    public init?(message: String) {
        let constant: [AIFailure] = [
            .notConfigured, .unauthorized, .rateLimited(retryAfter: nil), .noCredit, .regionNotSupported,
            .cannotSeeImages, .photoUnreadable, .timedOut, .offline, .connectionLost, .untrusted(""), .refused(""),
            .malformedAnswer(""), .badPhoto(""),
        ]
        guard let failure = constant.first(where: { $0.message == message }) else { return nil }
        self = failure
    }

    /// A short sentence for the screen; never contains a key or a URL.
    public var message: String {
        switch self {
        case .notConfigured: "AI service not configured"
        case .unauthorized: "The AI service rejected the API key"
        case .rateLimited(let after):
            after.map { "The AI service is busy — try again in \(Int($0.seconds.rounded(.up))) s" }
                ?? "The AI service is busy — try again shortly"
        case .noCredit: "The AI account has no credit left"
        case .modelUnavailable(let model): "Model \(model) is not available to this key"
        case .regionNotSupported: "The AI service is not available in this country"
        case .cannotSeeImages: "This AI model cannot see images"
        case .photoUnreadable: "The AI could not read this photo"
        case .requestRefused(let reason): "The AI service refused the request: \(reason)"
        case .serverError(let status): "The AI service failed (HTTP \(status))"
        case .timedOut: "The AI service did not answer in time"
        case .offline: "No network — the AI service cannot be reached"
        case .connectionLost: "The connection to the AI service broke"
        case .untrusted: "The AI service's certificate could not be verified — is the clock right?"
        case .refused: "The AI declined this photo"
        case .malformedAnswer: "The AI answer could not be read"
        case .badPhoto: "The photo could not be prepared for the AI service"
        }
    }
}

/// Why an upload to the group did not go through.
public enum UploadFailure: Sendable, Hashable, Error {
    /// No network; the capture stays queued and is sent when the network returns.
    case offline
    /// The server already has today's photo for this group.
    case alreadySentToday
    /// The server refused the upload for a reason that retrying will not heal.
    case rejected(String)
    /// The group's folder (the folder backend's disk) is full: the photo waits until there is space.
    case destinationFull
    /// The server's TLS certificate could not be verified (a wrong clock, or not the real server): the
    /// photo waits, and is sent when it can be verified.
    case untrusted(String)
    /// The station could not sign in to the group's server (a wrong password, a disabled user, not a
    /// Supabase project): the photo waits, and goes once signing in works.
    case signInFailed(String)
}

extension UploadFailure {
    /// The photo waits and is tried again: no network, a full folder, a server not verified yet.
    public var mayHeal: Bool {
        switch self {
        case .offline, .destinationFull, .untrusted, .signInFailed: true
        case .alreadySentToday, .rejected: false
        }
    }
}

/// Why storing a capture or a meal failed.
public enum StorageFailure: Sendable, Hashable, Error {
    case full
    case failed(String)
}

/// A part of the station that can be missing.
public enum DeviceKind: String, Sendable, Hashable, CaseIterable {
    case camera, buttons, flash, display
}

/// Whether a device is usable.
public enum DeviceStatus: Sendable, Hashable {
    case available
    case missing(String)
}

/// A GPIO line as the config names it: by offset on its chip, or by the name the board gives it ("GPIO17").
public enum GPIOLine: Sendable, Hashable, CustomStringConvertible {
    case offset(Int)
    case name(String)

    public var description: String {
        switch self {
        case .offset(let offset): "offset \(offset)"
        case .name(let name): name
        }
    }
}
