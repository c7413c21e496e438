// ss_crash: a last word from a station that dies of a fatal signal.
//
// Why this shim exists: a crash under systemd leaves "code=killed, status=11/SEGV" and nothing else (the
// Swift runtime's backtracer needs a helper process the hardened unit does not allow). The handler
// writes, with async-signal-safe calls only, the signal, the faulting address, the thread's name, the
// executable's load address and the raw return addresses of the stack to standard error (the journal),
// so `addr2line -e snapstation` on the same build names the functions. It then lets the signal kill the
// process as before (systemd restarts it).
#ifndef SS_CRASH_H
#define SS_CRASH_H

#ifdef __cplusplus
extern "C" {
#endif

/// Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP (a Swift trap on arm64).
/// The alternate signal stack is the calling thread's only: a stack overflow on another thread may die
/// without its report. Call once, early. Returns 0 or a negative errno.
int ss_crash_install(void);

#ifdef __cplusplus
}
#endif

#endif
