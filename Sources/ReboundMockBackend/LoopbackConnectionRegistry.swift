import NIOConcurrencyHelpers
import NIOCore

/// The loopback server's record of its connections and the requests they carried.
///
/// It numbers connections as they are accepted, keeps the open ones so that shutting down can close
/// them all (stalled ones included), and counts requests per path: for at most `maxTrackedPaths` distinct
/// paths of at most `Limits.maximumTrackedPathLength` bytes, and the requests to any other path together, so that endless distinct paths cannot grow it. Channel initializers and handlers
/// update it from the event loop while tests read it from their own tasks, hence the lock (a pthread mutex, which the thread sanitizer understands).
final class LoopbackConnectionRegistry: Sendable {
    private struct State {
        var connectionsAccepted = 0
        var requestsReceived = 0
        var requestsByPath: [String: Int] = [:]
        var requestsToUntrackedPaths = 0
        var openConnections: [ObjectIdentifier: any Channel] = [:]
        var isShutDown = false
    }

    private let state = NIOLockedValueBox(State())
    private let maxTrackedPaths: Int

    /// Creates an empty registry that counts the requests of at most `maxTrackedPaths` paths one by one.
    init(maxTrackedPaths: Int) {
        self.maxTrackedPaths = maxTrackedPaths
    }

    /// How many connections were accepted so far.
    var connectionsAccepted: Int {
        state.withLockedValue { $0.connectionsAccepted }
    }

    /// How many complete requests were received so far.
    var requestsReceived: Int {
        state.withLockedValue { $0.requestsReceived }
    }

    /// How many complete requests were received so far for paths beyond the tracked ones.
    var requestsToUntrackedPaths: Int {
        state.withLockedValue { $0.requestsToUntrackedPaths }
    }

    /// How many complete requests were received so far for `path`.
    func requestsReceived(for path: String) -> Int {
        state.withLockedValue { $0.requestsByPath[path, default: 0] }
    }

    /// Records a newly accepted connection and returns its 1-based number, or `nil` if the server is
    /// shutting down or already has `maxConnections` open, and the connection should be closed at once.
    func connectionOpened(_ channel: any Channel, maxConnections: Int) -> Int? {
        state.withLockedValue { state in
            guard !state.isShutDown, state.openConnections.count < maxConnections else { return nil }
            state.connectionsAccepted += 1
            state.openConnections[ObjectIdentifier(channel)] = channel
            return state.connectionsAccepted
        }
    }

    /// Forgets a connection that has closed.
    func connectionClosed(_ channel: any Channel) {
        _ = state.withLockedValue { $0.openConnections.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Counts a complete request for `path`, under its path if that is tracked or can be, or else with
    /// the requests to untracked paths (a path longer than `Limits.maximumTrackedPathLength` never is).
    func requestReceived(path: String) {
        let trackable = path.utf8.count <= LoopbackServer.Limits.maximumTrackedPathLength
        state.withLockedValue { state in
            state.requestsReceived += 1
            if !trackable {
                state.requestsToUntrackedPaths += 1
            } else if let count = state.requestsByPath[path] {
                state.requestsByPath[path] = count + 1
            } else if state.requestsByPath.count < maxTrackedPaths {
                state.requestsByPath[path] = 1
            } else {
                state.requestsToUntrackedPaths += 1
            }
        }
    }

    /// Marks the server as shutting down and returns the connections open at that moment, or `nil` if
    /// it was already shutting down.
    ///
    /// Once this returns, ``connectionOpened(_:)`` refuses new connections, so the returned list is
    /// every connection left to close.
    func beginShutdown() -> [any Channel]? {
        state.withLockedValue { state in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            return Array(state.openConnections.values)
        }
    }
}
