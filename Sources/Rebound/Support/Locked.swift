import Foundation

/// A value guarded by a lock, for Rebound's own modules.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux the latter
/// locks with raw futex calls that the thread sanitizer cannot see, so every access under it is
/// reported as a race. Rebound's tests run under the sanitizer, and this keeps them meaningful.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
