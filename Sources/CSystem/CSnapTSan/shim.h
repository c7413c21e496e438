#ifndef CSNAPTSAN_SHIM_H
#define CSNAPTSAN_SHIM_H
// ThreadSanitizer's own annotation calls (compiler-rt's tsan_interface_ann.cpp): `__tsan_acquire(a)`
// orders what follows after every earlier `__tsan_release(a)` on the same address. Only a build with
// -sanitize=thread links the runtime that defines them; SnapFiles' Lock calls them only when compiled
// with -DSNAPSTATION_TSAN (Tests/Sanitizers/run thread), so every other build never references them.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#endif
