#define _GNU_SOURCE
#include "ss_crash.h"

#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static uintptr_t load_address;

static int find_executable(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    // The first object dl_iterate_phdr reports is the executable itself.
    load_address = (uintptr_t)info->dlpi_addr;
    return 1;
}

static void put(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void put_hex(uintptr_t value) {
    char digits[2 + 2 * sizeof(uintptr_t) + 1];
    int at = (int)sizeof(digits) - 1;
    digits[at] = 0;
    do {
        digits[--at] = "0123456789abcdef"[value & 0xf];
        value >>= 4;
    } while (value != 0 && at > 2);
    digits[--at] = 'x';
    digits[--at] = '0';
    put(digits + at);
}

static void put_number(long value) {
    char digits[24];
    int at = (int)sizeof(digits) - 1;
    digits[at] = 0;
    unsigned long magnitude = value < 0 ? (unsigned long)-value : (unsigned long)value;
    do {
        digits[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0 && at > 1);
    if (value < 0) digits[--at] = '-';
    put(digits + at);
}

static const char *signal_name(int signal) {
    switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    default: return "a fatal signal";
    }
}

static void report(int signal, siginfo_t *info, void *context) {
    (void)context;
    char thread[17] = {0};
    prctl(PR_GET_NAME, thread, 0, 0, 0);
    put("snapstation: crashed: ");
    put(signal_name(signal));
    put(" (code ");
    put_number(info ? info->si_code : 0);
    put(") at address ");
    put_hex(info ? (uintptr_t)info->si_addr : 0);
    put(" on thread \"");
    put(thread);
    put("\"; executable loaded at ");
    put_hex(load_address);
    put("\nsnapstation: stack (return addresses less the load address; addr2line -f -C -e snapstation names them):");
    void *frames[48];
    int count = backtrace(frames, 48);
    for (int i = 0; i < count; i++) {
        put(" ");
        put_hex((uintptr_t)frames[i] - load_address);
    }
    put("\n");
    // SA_RESETHAND put the default action back: the signal kills the process once the handler returns
    // (a fault repeats at the same instruction; an abort or a raised signal is raised again).
    if (signal == SIGABRT || (info && info->si_code <= 0)) raise(signal);
}

int ss_crash_install(void) {
    dl_iterate_phdr(find_executable, NULL);
    // backtrace() loads libgcc's unwinder on its first call: not in a signal handler.
    void *warm[2];
    backtrace(warm, 2);
    static char alternate[64 * 1024];
    stack_t stack = {.ss_sp = alternate, .ss_size = sizeof(alternate), .ss_flags = 0};
    if (sigaltstack(&stack, NULL) != 0) return -errno;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = report;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    // SIGTRAP: on arm64 a Swift runtime trap (a failed precondition, a force-unwrap of nil) is a brk
    // instruction; on x86 it is ud2, SIGILL.
    const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -errno;
    }
    return 0;
}
