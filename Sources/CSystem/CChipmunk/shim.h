// Chipmunk2D 7, the jar's 2D physics (Debian's libchipmunk-dev).
#include <chipmunk/chipmunk.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

// Debian's libchipmunk is a debug build: the first cpSpaceInit of a process printf()s a two-line banner
// ("Initializing cpSpace - Chipmunk v7.0.3 (Debug Enabled)" and a hint to compile with -DNDEBUG) to standard
// output, once (a static flag in cpSpace.c). This makes that first space with standard output pointed at
// /dev/null: what was buffered goes out first, the banner is flushed into /dev/null, and the descriptor is
// put back. In C, because it needs glibc's `stdout`, which Swift 6 will not read (shared mutable state);
// `fflush(NULL)` would also lock stdin, which the simulated buttons' thread holds while it waits in getline.
static inline void ss_chipmunk_quiet_banner(void) {
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    cpSpaceFree(cpSpaceNew());
    fflush(stdout);
    if (saved >= 0 && null >= 0) dup2(saved, STDOUT_FILENO);
    if (null >= 0) close(null);
    if (saved >= 0) close(saved);
}
