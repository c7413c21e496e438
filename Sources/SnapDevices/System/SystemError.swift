import Foundation

/// An errno from a C call, with the name a person can search for and the C library's wording.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int32

    public init(_ code: Int32) { self.code = code }

    /// From a shim's negative-errno return.
    public init(negative result: Int32) { self.code = -result }

    /// A shim's return: 0 or more is success, a negative errno a failure.
    public static func check(_ result: Int32) -> Result<Void, SystemError> {
        result < 0 ? .failure(SystemError(negative: result)) : .success(())
    }

    /// The last errno of this thread.
    public static var current: SystemError { SystemError(errno) }

    public static let noEntry = SystemError(ENOENT)
    public static let busy = SystemError(EBUSY)
    public static let accessDenied = SystemError(EACCES)
    public static let noDevice = SystemError(ENODEV)

    /// "EBUSY", or "errno 123" for codes without a short name here.
    public var name: String {
        switch code {
        case ENOENT: "ENOENT"
        case EBUSY: "EBUSY"
        case EACCES: "EACCES"
        case EPERM: "EPERM"
        case ENODEV: "ENODEV"
        case ENXIO: "ENXIO"
        case EINVAL: "EINVAL"
        case EIO: "EIO"
        case ENOMEM: "ENOMEM"
        case ENOTTY: "ENOTTY"
        case EPIPE: "EPIPE"
        case EAGAIN: "EAGAIN"
        default: "errno \(code)"
        }
    }

    public var description: String { "\(String(cString: strerror(code))) (\(name))" }
}

/// A failure to open a device: the errno, and the shim's sentence about what it tried.
public struct DriverFailure: Error, Sendable, Hashable {
    public var error: SystemError
    public var message: String
    public init(_ error: SystemError, _ message: String) {
        self.error = error
        self.message = message
    }
}

/// An opaque handle from a C shim (a chip, a line, an output, a camera), carried as its pointer's bits
/// so that mocks can make their own.
public protocol DriverHandle: Sendable, Hashable {
    var raw: UInt { get }
    init(raw: UInt)
}

extension DriverHandle {
    init(_ pointer: OpaquePointer?) { self.init(raw: UInt(bitPattern: pointer)) }
    var pointer: OpaquePointer { OpaquePointer(bitPattern: raw)! }
}
