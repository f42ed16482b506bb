import CCurl
import Glibc
import Rebound

/// libcurl's memory functions: the C library's, except that receive buffers are kept for reuse.
///
/// libcurl 7.88 allocates a transfer's receive buffer (16 KiB and one byte) when the transfer
/// starts and frees it when the transfer ends. With many transfers in flight, the freed buffers
/// often end up at the top of the heap, glibc gives that memory back to the system (`brk`, or
/// `madvise` in a thread's arena), and the next transfers fault it in again; keeping the buffers
/// takes those page faults and system calls away. libcurl 8 keeps one receive buffer per multi
/// handle and allocates none per transfer, so with it the cache stays empty.
///
/// Only an app that asks for it gets them (``CurlTransport/reuseReceiveBuffers()``): they replace
/// libcurl's allocator for the whole process, which a library must not do behind the app's back.
/// ``CurlGlobal`` gives them to `curl_global_init_mem`; libcurl uses them only when that call is
/// the first initialisation of libcurl in the process; if something else (such as
/// FoundationNetworking) initialised libcurl first, libcurl keeps the C library's functions and
/// nothing here is used.
enum CurlMemory {
    /// The size libcurl asks for a receive buffer: its default buffer size (`CURL_MAX_WRITE_SIZE`)
    /// and one byte. Rebound never sets `CURLOPT_BUFFERSIZE`.
    static let receiveBufferSize = Int(CURL_MAX_WRITE_SIZE) + 1

    /// At most this many buffers wait for reuse: enough for every transfer of a busy transport,
    /// 1 MiB at most.
    static let maxCachedBuffers = 64

    private struct Cache {
        /// The buffers' addresses (as integers, which cross into the lock as plain values).
        var buffers: [UInt] = []
        /// What `malloc_usable_size` reports for a block of ``receiveBufferSize``; a freed block of
        /// that usable size is large enough to serve as a receive buffer, whoever allocated it.
        var usableSize = 0
        /// How many buffers were handed out again rather than allocated, for the tests.
        var reuses = 0
    }

    // A pthread mutex (`Locked`), which the thread sanitizer sees, not `Synchronization.Mutex`.
    private static let cache: Locked<Cache> = {
        var cache = Cache()
        cache.buffers.reserveCapacity(maxCachedBuffers)
        if let probe = Glibc.malloc(receiveBufferSize) {
            cache.usableSize = rebound_malloc_usable_size(probe)
            cache.buffers.append(UInt(bitPattern: probe))
        }
        return Locked(cache)
    }()

    /// How many buffers wait for reuse.
    static var cachedBufferCount: Int { cache.withLock { $0.buffers.count } }

    /// How many times a buffer was reused since the process started.
    static var reuseCount: Int { cache.withLock { $0.reuses } }

    static let allocate: curl_malloc_callback = { size in
        size == receiveBufferSize ? allocateReceiveBuffer() : Glibc.malloc(size)
    }

    /// A kept receive buffer, or a new one when none is kept.
    @inline(never)
    private static func allocateReceiveBuffer() -> UnsafeMutableRawPointer? {
        let kept = cache.withLock { cache -> UInt? in
            guard let address = cache.buffers.popLast() else { return nil }
            cache.reuses += 1
            return address
        }
        return kept.flatMap { UnsafeMutableRawPointer(bitPattern: $0) } ?? Glibc.malloc(receiveBufferSize)
    }

    static let release: curl_free_callback = { pointer in
        // libcurl frees about 34 blocks per request, nearly all small: their path is kept to a
        // size check and `free`, without the registers and stack the cache's path needs.
        guard let pointer else { return }
        let usableSize = rebound_malloc_usable_size(pointer)
        if usableSize >= receiveBufferSize {
            releaseLarge(pointer, usableSize: usableSize)
        } else {
            Glibc.free(pointer)
        }
    }

    /// Keeps a freed receive buffer for reuse, or frees a block that is not one or finds the cache full.
    @inline(never)
    private static func releaseLarge(_ pointer: UnsafeMutableRawPointer, usableSize: Int) {
        let address = UInt(bitPattern: pointer)
        let kept = cache.withLock { cache -> Bool in
            guard usableSize == cache.usableSize, cache.buffers.count < maxCachedBuffers else { return false }
            cache.buffers.append(address)
            return true
        }
        if !kept { Glibc.free(pointer) }
    }

    static let reallocate: curl_realloc_callback = { pointer, size in
        Glibc.realloc(pointer, size)
    }

    static let duplicate: curl_strdup_callback = { string in
        string.flatMap { Glibc.strdup($0) }
    }

    static let allocateZeroed: curl_calloc_callback = { count, size in
        Glibc.calloc(count, size)
    }
}
