#if canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    package import Musl
#elseif canImport(Darwin)
    package import Darwin
#endif

/// A value guarded by a lock, for Rebound's own modules.
///
/// Built on a pthread mutex rather than `Synchronization.Mutex`: on Linux the latter locks with
/// raw futex calls that the thread sanitizer cannot see, so every access under it is reported as
/// a race. Rebound's tests run under the sanitizer, and this keeps them meaningful.
///
/// The mutex lives behind a pointer (a pthread mutex must not move), and the value is
/// `@exclusivity(unchecked)`: a class's stored `var` otherwise gets a dynamic exclusivity check on
/// every `inout` access (a thread-local lookup included), which the lock makes redundant. `NSLock` would add a dynamic call and checks of its own around the same mutex.
/// Both were on the path of every API call.
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline @exclusivity(unchecked) var value: Value

    package init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// Inlinable, so that the transport's module, which takes locks on every request, gets it
    /// specialized and inlined rather than as a generic call with a closure.
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
