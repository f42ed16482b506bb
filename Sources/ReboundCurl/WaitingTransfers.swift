/// Which transfers of a ``CurlMultiLoop`` run and which wait for a connection: per origin, first
/// come, first served, with one bound on all that wait. Only the loop thread touches it.
///
/// libcurl queues transfers beyond its per-host limit itself, but not fairly: a transfer it moves
/// out of its queue when a connection frees up can lose that connection to one added since, and
/// then goes to the back of the queue again (with 1,000 calls over 32 connections, the slowest
/// hundredth waited 160 times as long as the median). So the loop hands libcurl no more transfers
/// per origin than it has connections for, and keeps the rest here, in the order they came.
struct WaitingTransfers {
    /// What to do with a transfer that is about to start.
    enum Admission {
        /// Hand it to libcurl now.
        case run
        /// It waits for an earlier transfer of its origin to finish.
        case wait
        /// It cannot wait: the queue is full.
        case full
    }

    /// The transfers of one origin.
    final class Origin {
        /// Handed to libcurl and not finished yet.
        var running = 0
        /// Waiting, oldest first from `head`: a head index rather than removing the first element,
        /// which would move every other.
        var waiting: [CurlTransfer] = []
        var head = 0
        /// Whether a transfer came back over HTTP/2 or later, so that the origin's transfers share
        /// connections.
        var multiplexes = false

        var waitingCount: Int { waiting.count - head }
    }

    /// Streams libcurl runs on one multiplexed connection (its `CURLMOPT_MAX_CONCURRENT_STREAMS`).
    static let streamsPerConnection = 100
    /// Origins kept while nothing of theirs runs or waits, so that an origin's state outlives a
    /// pause between requests; past it, idle ones are forgotten.
    private static let maxIdleOrigins = 64

    /// Connections libcurl may open per origin (`0`: no limit, and nothing waits here).
    let connectionsPerOrigin: Int
    /// How many transfers may wait, across origins.
    let capacity: Int
    /// How many transfers wait, across origins.
    private(set) var count = 0
    private var origins: [String: Origin] = [:]

    init(connectionsPerOrigin: Int, capacity: Int) {
        self.connectionsPerOrigin = connectionsPerOrigin
        self.capacity = capacity
    }

    /// Decides whether `transfer` runs now or waits, and counts it in either case.
    mutating func admit(_ transfer: CurlTransfer, now: UInt64) -> Admission {
        guard connectionsPerOrigin > 0 else { return .run }
        let origin = origin(named: transfer.origin)
        if origin.waitingCount == 0, origin.running < limit(of: origin) {
            origin.running += 1
            transfer.originState = origin
            return .run
        }
        guard count < capacity else { return .full }
        origin.waiting.append(transfer)
        count += 1
        transfer.originState = origin
        transfer.queuedAt = now
        return .wait
    }

    /// Records that a running transfer finished, and returns the transfers of its origin that may
    /// run now, oldest first: they count as running, and keep their `queuedAt` for the caller to
    /// read and clear.
    mutating func finished(_ transfer: CurlTransfer, multiplexed: Bool) -> [CurlTransfer] {
        guard let origin = transfer.originState else { return [] }
        transfer.originState = nil
        origin.running -= 1
        if multiplexed { origin.multiplexes = true }
        var next: [CurlTransfer] = []
        while origin.waitingCount > 0, origin.running < limit(of: origin) {
            let transfer = origin.waiting[origin.head]
            origin.head += 1
            count -= 1
            origin.running += 1
            next.append(transfer)
        }
        compact(origin)
        return next
    }

    /// Takes a waiting transfer out of the queue. Returns false if it does not wait.
    mutating func remove(_ transfer: CurlTransfer) -> Bool {
        guard transfer.queuedAt != nil, let origin = transfer.originState,
            let index = origin.waiting[origin.head...].firstIndex(where: { $0 === transfer })
        else { return false }
        origin.waiting.remove(at: index)
        count -= 1
        transfer.queuedAt = nil
        transfer.originState = nil
        compact(origin)
        return true
    }

    /// Takes out every waiting transfer whose connect timeout or total timeout has passed.
    mutating func removeExpired(now: UInt64) -> [CurlTransfer] {
        guard count > 0 else { return [] }
        var expired: [CurlTransfer] = []
        for origin in origins.values where origin.waitingCount > 0 {
            for transfer in origin.waiting[origin.head...] {
                if let queuedAt = transfer.queuedAt, now &- queuedAt >= transfer.waitLimitNanoseconds {
                    expired.append(transfer)
                }
            }
        }
        for transfer in expired { _ = remove(transfer) }
        return expired
    }

    /// Takes out every waiting transfer, oldest first per origin.
    mutating func removeAll() -> [CurlTransfer] {
        var all: [CurlTransfer] = []
        for origin in origins.values {
            all += origin.waiting[origin.head...]
            origin.waiting = []
            origin.head = 0
        }
        for transfer in all {
            transfer.queuedAt = nil
            transfer.originState = nil
        }
        count = 0
        return all
    }

    private func limit(of origin: Origin) -> Int {
        origin.multiplexes ? connectionsPerOrigin * Self.streamsPerConnection : connectionsPerOrigin
    }

    private mutating func origin(named name: String) -> Origin {
        if let origin = origins[name] { return origin }
        if origins.count >= Self.maxIdleOrigins {
            origins = origins.filter { $0.value.running > 0 || $0.value.waitingCount > 0 }
        }
        let origin = Origin()
        origins[name] = origin
        return origin
    }

    /// Drops the slots before the head once they are half the array.
    private func compact(_ origin: Origin) {
        if origin.head == origin.waiting.count {
            origin.waiting.removeAll(keepingCapacity: true)
            origin.head = 0
        } else if origin.head > 64, origin.head * 2 > origin.waiting.count {
            origin.waiting.removeFirst(origin.head)
            origin.head = 0
        }
    }
}
