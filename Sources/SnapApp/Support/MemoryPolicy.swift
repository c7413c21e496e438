import Foundation
import Synchronization

#if canImport(Glibc)
    import CMalloc
#endif

/// How the station asks glibc's allocator to behave over months of captures.
///
/// A capture allocates a few buffers of 12 MB and more (the still, the photo in BGRX, the encoder's
/// output) on the camera's and the pipeline's threads, and frees them a second later. Left to its
/// defaults, glibc raises its mmap threshold to the largest block freed (up to 32 MB), so from the second
/// capture on these buffers come from the heap; each thread gets an arena of its own, and a freed block
/// in the middle of an arena is kept. Resident memory then sits at the high-water mark of the busiest
/// moment: 170 MB after 10 captures, against 63 MB idle (measured, docs/benchmarks.md).
///
/// The policy: a fixed mmap threshold of 1 MB (a fixed value also stops the dynamic raising), so every
/// large buffer is its own mapping and goes back to the kernel when freed; at most two arenas; and
/// `malloc_trim` after each photo is processed, which gives back the small blocks' free pages. glibc's
/// trim threshold stays at its 128 KB: a page of 500 meals (a 256 KB string) then gives the heap's top
/// back and takes it again each request, two `brk` calls; with a 4 MB threshold tried on 2026-11-28 the
/// soak's resident memory rose 1.5 MB past the warm-up (SoakTests allows 1 MB), so the default stays.
/// `SNAPSTATION_MALLOC=default` leaves glibc's defaults, for the benchmark's comparison.
public enum MemoryPolicy {
    public static let mmapThreshold: Int32 = 1 << 20
    public static let arenas: Int32 = 2

    /// Applies the policy unless the environment says not to; returns a line for the log.
    @discardableResult
    public static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard environment["SNAPSTATION_MALLOC"] != "default" else { return "glibc's defaults (SNAPSTATION_MALLOC)" }
        #if canImport(Glibc)
            _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
            _ = mallopt(M_ARENA_MAX, arenas)
            enabled.store(true, ordering: .relaxed)
            return "buffers from 1 MB mapped on their own, \(arenas) arenas, trimmed after each photo"
        #else
            return "the platform's defaults"
        #endif
    }

    /// Gives free heap pages back to the kernel, after a capture's buffers were freed.
    public static func trim() {
        #if canImport(Glibc)
            if enabled.load(ordering: .relaxed) { _ = malloc_trim(0) }
        #endif
    }

    private static let enabled = Atomic(false)
}
