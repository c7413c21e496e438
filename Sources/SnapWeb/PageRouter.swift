import SnapFiles
import SnapText

/// One room of the owner's page (today and meals, settings, the group, the update, …): a type that holds
/// only what its pages use and adds its own routes, as Hummingbird 2's `RouteCollection` does with
/// `addRoutes(to:)`. The gate in front of every room (`PageGate`) has already checked the request's
/// host, origin, session and form when a room's handler runs.
protocol PageRoom: Sendable {
    /// What every page of the room is written with: its words, its layout, the clock.
    var frame: PageFrame { get }
    /// Whether every route of the room is the owner's (`PageRouter.owners`): the keys, the services,
    /// backups and restores, the reset, updates, people, pairing others and the settings.
    var isOwners: Bool { get }
    func addRoutes(to router: inout PageRouter)
}

extension PageRoom {
    var isOwners: Bool { false }
}

/// A request that passed the gate, as a room's handler reads it.
struct PageRequest: Sendable {
    var request: WebRequest
    /// The paired browser and its checked form; nil on the routes anyone may use (`PageRouter.anyone`).
    var visitor: PageVisitor?
    /// The path's parts a route's pattern names with `:` (`meal/:id` gives ["id": …]), or `*` the rest.
    var parameters: [String: String]

    /// The paired browser; a route for anyone has none, and its handler does not ask.
    var paired: PageVisitor {
        guard let visitor else { preconditionFailure("a route for anyone asked for the paired browser") }
        return visitor
    }

    subscript(_ name: String) -> String { parameters[name] ?? "" }
}

/// The page's routes: each a method, a pattern of the path's parts and its handler, added by the rooms.
/// A literal part is matched before a `:name`, so `shopping/plan` is never a `plan` id.
struct PageRouter: Sendable {
    typealias Handler = @Sendable (PageRequest) throws -> PageStep

    struct Route: Sendable {
        /// Who the gate lets through: anyone, any paired browser, or only the owner's (a household
        /// member's is refused in words, 403).
        enum Access: Sendable { case anyone, paired, owner }
        var post: Bool
        var parts: [Substring]
        var access: Access
        var handler: Handler
    }

    /// By the path's first part, then in the order added; a pattern of `""` is the root.
    private var routes: [Substring: [Route]] = [:]
    /// What the routes added now are: a paired browser's, or the owner's inside `owners`.
    private var adding = Route.Access.paired

    mutating func get(_ pattern: String, _ handler: @escaping Handler) { add(false, pattern, adding, handler) }
    mutating func post(_ pattern: String, _ handler: @escaping Handler) { add(true, pattern, adding, handler) }

    /// The routes `add` adds are the owner's alone.
    mutating func owners(_ add: (inout PageRouter) -> Void) {
        let before = adding
        adding = .owner
        add(&self)
        adding = before
    }

    /// Every route: its method, its pattern and who may use it (for the tests that try each).
    var all: [(post: Bool, pattern: String, access: Route.Access)] {
        routes.values.flatMap { $0 }.map { ($0.post, $0.parts.joined(separator: "/"), $0.access) }
    }

    /// A page of the paired browser's that needs nothing of the path: `router.get("status", page: statusPage)`.
    mutating func get(_ pattern: String, page: @escaping @Sendable (PageVisitor) throws -> WebReply) {
        get(pattern) { try .reply(page($0.paired)) }
    }

    /// A form of the paired browser's that needs nothing of the path, answered by a page.
    mutating func post(_ pattern: String, page: @escaping @Sendable (PageVisitor) throws -> WebReply) {
        post(pattern) { try .reply(page($0.paired)) }
    }

    /// A page about the one thing the path names (`plan/:id/delete`): its name, and the paired browser.
    mutating func get(_ pattern: String, named page: @escaping @Sendable (String, PageVisitor) throws -> WebReply) {
        get(pattern) { try .reply(page($0.parameters.values.first ?? "", $0.paired)) }
    }

    /// A form about the one thing the path names, answered by a page.
    mutating func post(_ pattern: String, named page: @escaping @Sendable (String, PageVisitor) throws -> WebReply) {
        post(pattern) { try .reply(page($0.parameters.values.first ?? "", $0.paired)) }
    }

    /// A form answered in steps (the group's server asked between them).
    mutating func post(_ pattern: String, steps: @escaping @Sendable (PageVisitor) throws -> PageStep) {
        post(pattern) { try steps($0.paired) }
    }
    /// A route the gate lets anyone through to: the pairing page, the style sheet, the script.
    mutating func anyone(post: Bool, _ pattern: String, _ handler: @escaping Handler) {
        add(post, pattern, .anyone, handler)
    }

    private mutating func add(_ post: Bool, _ pattern: String, _ access: Route.Access, _ handler: @escaping Handler) {
        let parts = pattern.split(separator: "/")
        routes[parts.first ?? "", default: []].append(Route(post: post, parts: parts, access: access, handler: handler))
    }

    /// The route for a request's method and path's parts, with the parts its pattern names. A GET's route
    /// answers a HEAD too.
    func route(post: Bool, _ parts: [String]) -> (Route, [String: String])? {
        var found: (Route, [String: String])?
        for route in routes[Substring(parts.first ?? ""), default: []] where route.post == post {
            guard let named = Self.match(route.parts, parts) else { continue }
            // A pattern with fewer names wins: `shopping/plan` over `shopping/:x`.
            if found.map({ named.count < $0.1.count }) ?? true { found = (route, named) }
        }
        return found
    }

    private static func match(_ pattern: [Substring], _ parts: [String]) -> [String: String]? {
        var named: [String: String] = [:]
        for (index, part) in pattern.enumerated() {
            if part == "*" {
                named["*"] = parts.dropFirst(index).joined(separator: "/")
                return named
            }
            guard index < parts.count else { return nil }
            if part.first == ":" {
                named[String(part.dropFirst())] = parts[index]
            } else if part != parts[index] {
                return nil
            }
        }
        return pattern.count == parts.count ? named : nil
    }
}

/// What a room remembers between requests (a correction asked, an install under way), shared by every
/// copy of the room: a room is a value its routes capture, its state is not.
final class RoomState<Value: Sendable>: Sendable {
    private let lock: Lock<Value>

    init(_ value: Value) { lock = Lock(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { value in try body(&value) }
    }
}
