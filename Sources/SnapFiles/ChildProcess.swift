import CSnapSpawn
import Foundation
import Glibc

/// A program the station starts and waits for (RAUC's client), with its standard output and error as
/// pipes and its standard input on /dev/null.
///
/// Started by `posix_spawn` with an empty signal mask and every signal's default action, as a program
/// expects to start. Foundation's `Process` passes the calling thread's mask on, and the station's threads
/// block most signals (Dispatch's and the serial threads do): a `rauc install` started from one kept
/// SIGTERM blocked, so it could not be ended when the station stopped.
public final class ChildProcess: Sendable {
    /// Why a program could not be started.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// How it ended: its exit status, or the signal that ended it.
    public enum Ending: Sendable, Hashable {
        case exited(Int32)
        case signalled(Int32)
    }

    public let pid: pid_t
    /// The read ends of its standard output and error.
    public let output: FileHandle
    public let errors: FileHandle

    /// Starts `path` with `arguments` (without the program's own name) and the station's environment.
    public init(_ path: String, _ arguments: [String]) throws(Failure) {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw Self.failure(path, errno) }
        guard pipe(&errorPipe) == 0 else {
            let error = errno
            close(outputPipe[0])
            close(outputPipe[1])
            throw Self.failure(path, error)
        }
        // Glibc's pipe2 is not imported into Swift; the station starts no other program, so setting
        // FD_CLOEXEC just after leaves no other child to inherit these.
        for descriptor in outputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // dup2 leaves the new descriptors open across exec; every other end closes there (O_CLOEXEC).
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        // Nothing else the station has open goes with it (a file another thread is writing would stay open
        // in the child, and a script being written could not be started: "Text file busy"). glibc 2.34+.
        snap_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?] = Self.environment.map { strdup($0) } + [nil]
        defer { for variable in envp { free(variable) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        close(outputPipe[1])
        close(errorPipe[1])
        guard result == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw Self.failure(path, result)
        }
        pid = child
        output = FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true)
        errors = FileHandle(fileDescriptor: errorPipe[0], closeOnDealloc: true)
    }

    /// Asks it to end (SIGTERM).
    public func terminate() {
        kill(pid, SIGTERM)
    }

    /// Waits for it to end (blocking), and reaps it.
    public func wait() -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return .exited(-1) }
        }
        // <sys/wait.h>'s WIFSIGNALED and WTERMSIG, which Swift does not import (they are macros).
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F ? .signalled(signal) : .exited((status >> 8) & 0xFF)
    }

    /// The environment the child gets: the station's, read once, as `NAME=value` lines. Not `environ`
    /// itself: a `setenv` on another thread (libcamera's log level as a camera opens, a test's proxy) may
    /// move glibc's array while `posix_spawn` reads it, and the child's exec then failed with EFAULT ("Bad
    /// address", once in CI).
    private static let environment = ProcessInfo.processInfo.environment.sorted { $0.key < $1.key }.map {
        "\($0.key)=\($0.value)"
    }

    private static func failure(_ path: String, _ code: Int32) -> Failure {
        Failure(description: "\(path) could not be started: \(String(cString: strerror(code)))")
    }
}
