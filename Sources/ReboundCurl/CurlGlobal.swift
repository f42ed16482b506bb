import CCurl
import Glibc
import Rebound

/// libcurl's process-wide state, initialised once before the first handle is made.
enum CurlGlobal {
    private enum State {
        case uninitialized
        case initialized(usable: Bool, reusesReceiveBuffers: Bool)
    }

    /// `curl_global_init` is not thread-safe: a lock makes sure it runs once, whatever thread asks.
    private static let state = Locked(State.uninitialized)

    /// Initialises libcurl if that has not happened yet, with the C library's memory functions
    /// unless ``reuseReceiveBuffers()`` came first; returns whether libcurl is usable.
    static func initialize() -> Bool {
        state.withLock { state in
            if case .initialized(let usable, _) = state { return usable }
            let usable = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
            state = .initialized(usable: usable, reusesReceiveBuffers: false)
            return usable
        }
    }

    /// Initialises libcurl with ``CurlMemory``'s functions, if it was not initialised yet.
    ///
    /// - Returns: Whether libcurl uses them: false when a transport initialised it before.
    static func reuseReceiveBuffers() -> Bool {
        state.withLock { state in
            if case .initialized(_, let reuses) = state { return reuses }
            let usable =
                curl_global_init_mem(
                    Int(CURL_GLOBAL_ALL), CurlMemory.allocate, CurlMemory.release, CurlMemory.reallocate,
                    CurlMemory.duplicate, CurlMemory.allocateZeroed) == CURLE_OK
            state = .initialized(usable: usable, reusesReceiveBuffers: usable)
            return usable
        }
    }

    /// The version of the libcurl the process runs with, which may be newer than the 7.88
    /// headers Rebound builds against: `0xXXYYZZ` (8.6.0 is `0x08_06_00`).
    static let versionNumber = curl_version_info(CURLVERSION_TENTH)?.pointee.version_num ?? 0

    /// The value of `Accept-Encoding`: the encodings this libcurl can decode, `nil` for none.
    ///
    /// Spelled out rather than left to libcurl (`CURLOPT_ACCEPT_ENCODING` set to ""), which would
    /// offer deflate too: libcurl 7.88 formats the header byte by byte for every request, and a
    /// value given once spares it that work. deflate is still decoded when a server sends it.
    static let acceptedEncodings: String? = acceptedEncodings(
        features: curl_version_info(CURLVERSION_TENTH)?.pointee.features ?? 0)

    /// The encodings a libcurl with these feature bits decodes, in order of preference.
    static func acceptedEncodings(features: Int32) -> String? {
        let encodings = [
            (CURL_VERSION_LIBZ, "gzip"), (CURL_VERSION_BROTLI, "br"), (CURL_VERSION_ZSTD, "zstd"),
        ].filter { features & $0.0 != 0 }.map(\.1)
        return encodings.isEmpty ? nil : encodings.joined(separator: ", ")
    }
}

/// Monotonic time in nanoseconds, for the transfer loop's own bookkeeping.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

extension Duration {
    /// The duration in whole milliseconds, at least 1 and at most `Int.max`: libcurl reads 0 as
    /// "no limit", which a caller asking for zero time certainly did not mean.
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = Int(clamping: seconds).multipliedReportingOverflow(by: 1000)
        if milliseconds.overflow { return Int.max }
        let total = milliseconds.partialValue.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return total.overflow ? Int.max : max(1, total.partialValue)
    }

    /// The duration in nanoseconds, clamped to zero and to `UInt64.max`.
    var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let nanoseconds = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if nanoseconds.overflow { return .max }
        return nanoseconds.partialValue &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

extension CurlTransport {
    /// The version of the libcurl the process runs with (``CurlGlobal/versionNumber``), for the
    /// tests whose expectations follow libcurl's own behaviour.
    package static var libcurlVersionNumber: UInt32 { CurlGlobal.versionNumber }
}
