import Foundation

/// What `work` gives, run on a thread of its own, so that work that hangs on the named pipe at
/// `path` (an open that waits for the other end) fails the test instead of hanging it.
///
/// After a long wait (60 seconds, a bound only a hang gets near), the pipe's other end is opened
/// with `flags` to free the work, and `hung` is true: the caller records that as a failure.
///
/// - Returns: What `work` gave, `nil` if even freeing it did not end it; and whether it hung.
public func withoutHanging<Value: Sendable>(
    on path: String,
    freeingWith flags: Int32,
    _ work: @escaping @Sendable () -> Value
) async -> (value: Value?, hung: Bool) {
    let outcome = Outcome<Value>()
    Thread.detachNewThread {
        let value = work()
        outcome.set(value)
    }
    func finished() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if outcome.value != nil { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return outcome.value != nil
    }
    if await finished() { return (outcome.value, false) }
    let otherEnd = open(path, flags | O_NONBLOCK)
    if otherEnd >= 0 { close(otherEnd) }
    _ = await finished()
    return (outcome.value, true)
}

/// What the work gave, once it has.
///
/// Behind an `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`, whose futex calls
/// the thread sanitizer cannot see.
private final class Outcome<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? { lock.withLock { stored } }

    func set(_ value: Value) { lock.withLock { stored = value } }
}
