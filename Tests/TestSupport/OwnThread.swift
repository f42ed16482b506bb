import Foundation

/// Runs blocking `work` (a child process, a socket wait) on a thread of its own and suspends
/// until it is done.
///
/// Swift's cooperative pool has one thread per core, two on a small CI machine, and every test
/// of the run shares them. A test that blocks one of them slows every other test (the route
/// handlers of a server under test run on that pool too), and the ones that wait on a real clock
/// then fail for no fault of their own.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs blocking `work` that cannot fail on a thread of its own; see the throwing variant.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
