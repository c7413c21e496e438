internal import CSnapCrash

/// The station's last word when a fatal signal kills it (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, and
/// SIGTRAP, which a Swift runtime trap is on arm64): the
/// signal, the faulting address, the thread, and the stack as offsets into the executable, written to
/// standard error (the journal under systemd) before the signal takes its course and systemd restarts
/// the station. `addr2line -f -C -e snapstation OFFSET…` on the same build names the functions.
///
/// Written for the crash seen once in the appliance's system test (issue 11), which left nothing but
/// "status=11/SEGV": the Swift runtime's own backtracer needs a helper process that the hardened unit
/// forbids. The alternate signal stack is the installing thread's (`Station.run` runs on a thread of the
/// pool): a stack overflow on another thread may die without its report.
public enum CrashReport {
    /// Installs the handler; returns why it could not, or nil.
    @discardableResult
    public static func install() -> String? {
        let result = ss_crash_install()
        return result == 0 ? nil : "the crash report could not be installed (errno \(-result))"
    }
}
