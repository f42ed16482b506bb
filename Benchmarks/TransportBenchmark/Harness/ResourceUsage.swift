#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's CPU time and peak memory so far, from `getrusage(RUSAGE_SELF)`.
///
/// Every thread counts, so a client's background threads (an event loop, a curl multi thread,
/// URLSession's work queues) are charged to it.
struct ResourceUsage: Sendable {
    /// User plus system CPU time, in seconds.
    var cpuSeconds: Double
    /// The largest resident set size the process has had, in KiB.
    var peakResidentKiB: Int

    static func current() -> ResourceUsage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double {
            Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
        }
        #if os(Linux)
            let peakKiB = Int(usage.ru_maxrss)  // Linux reports KiB.
        #else
            let peakKiB = Int(usage.ru_maxrss) / 1024  // Darwin reports bytes.
        #endif
        return ResourceUsage(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), peakResidentKiB: peakKiB)
    }
}
