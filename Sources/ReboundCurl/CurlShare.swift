import CCurl
import Glibc

/// The TLS session cache that every easy handle of one ``CurlTransport`` shares.
///
/// The multi handle already shares connections and DNS answers between its easy handles; TLS
/// sessions it does not. Without this, a new connection could resume a TLS session only when its
/// easy handle happened to have made the earlier one, so 16 requests to a host on 16 new HTTP/1.1
/// connections paid up to 16 full handshakes. With it, a new connection can resume the session of
/// any earlier one to the same origin with the same TLS settings, once that one's handshake is
/// done (docs/transport.md says what the tests showed, and the limits).
///
/// libcurl takes the lock around every use of the cache: on the loop thread during handshakes,
/// and on whichever thread attaches an easy handle or lets it go. Every easy handle keeps the share
/// alive, so it is cleaned up after the last of them.
final class CurlShare: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init?() {
        guard let raw = curl_share_init() else { return nil }
        self.raw = raw
        mutex = .allocate(capacity: 1)
        let initialized = pthread_mutex_init(mutex, nil)
        precondition(initialized == 0, "pthread_mutex_init failed with \(initialized)")
        let settings = [
            rebound_share_setopt_lock_function(raw, lockShare),
            rebound_share_setopt_unlock_function(raw, unlockShare),
            rebound_share_setopt_pointer(raw, CURLSHOPT_USERDATA, mutex),
            rebound_share_setopt_long(raw, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)),
        ]
        guard settings.allSatisfy({ $0 == CURLSHE_OK }) else { return nil }
    }

    deinit {
        // Every easy handle keeps the share alive, so none uses it any more.
        let cleanedUp = curl_share_cleanup(raw)
        assert(cleanedUp == CURLSHE_OK, "curl_share_cleanup failed: \(cleanedUp)")
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}

private let lockShare: curl_lock_function = { _, _, _, mutex in
    pthread_mutex_lock(mutex!.assumingMemoryBound(to: pthread_mutex_t.self))
}

private let unlockShare: curl_unlock_function = { _, _, mutex in
    pthread_mutex_unlock(mutex!.assumingMemoryBound(to: pthread_mutex_t.self))
}
