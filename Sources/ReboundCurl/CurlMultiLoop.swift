import CCurl
import Glibc
import Rebound
import Synchronization

/// The one thread that drives every transfer of a ``CurlTransport`` through libcurl multi handles
/// (one, unless the transport is configured for more than 256 connections: ``Shard``).
///
/// ```
///  caller tasks                      loop thread
///  ────────────                      ───────────
///  send() ──► inbox (lock) ──wake──► take every command ─► curl_multi_add_handle / remove
///              (eventfd)             libcurl's timer due? curl_multi_socket_action(TIMEOUT)
///                                    epoll_wait: sleep until a socket, the timer or the eventfd
///                                    needs it, or only look if there is work already;
///                                    curl_multi_socket_action for each ready socket
///                                    (callbacks fill the transfers' buffers)
///  resume ◄──── continuation ◄────── drain every finished transfer (curl_multi_info_read),
///                                    check stalls
/// ```
///
/// The loop uses libcurl's event API: libcurl names the sockets it waits on and how
/// (`CURLMOPT_SOCKETFUNCTION`, kept in an epoll set) and when it next needs the time
/// (`CURLMOPT_TIMERFUNCTION`, the timeout of `epoll_wait`), and the loop hands it only the
/// sockets that are ready. So a wake-up costs time in proportion to the sockets that are ready,
/// not to all the connections held, as `curl_multi_poll` and `curl_multi_perform` would.
///
/// Each wake-up drains every queued command and every finished transfer, so a burst of requests
/// costs one wake-up, not one per request. The loop is woken (an eventfd in the epoll set) only
/// while it sleeps in `epoll_wait`: a command that arrives while it works is picked up on its
/// next turn.
///
/// The callers are resumed in one go at the end of a turn. One finished transfer resumes its
/// caller directly. Several resume theirs from one task on the global executor: resuming each
/// from the loop thread woke a worker thread per caller, which on a busy core preempted the loop
/// every time (two context switches per request); handing the batch over wakes one worker once.
/// Callers that run on the loop itself (its ``TaskExecutor``) are always resumed directly, which
/// only queues them for the loop's next turn.
final class CurlMultiLoop: @unchecked Sendable {
    enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
        /// A job of a task that prefers this loop as its executor.
        case run(UnownedJob)
    }

    private struct Inbox {
        var commands: [Command] = []
        var isPolling = false
        var isShutDown = false
    }

    /// How often, at most, the loop looks for stalled transfers.
    private static let stallCheckInterval: UInt64 = 50_000_000
    /// The most ready sockets one `epoll_wait` reports; more wait for the next turn.
    private static let maxEventsPerWait = 256

    /// One libcurl multi handle and what the loop keeps for it.
    ///
    /// libcurl 7.88 walks every connection of a host to find one for each new transfer, and its
    /// whole connection cache for each finished one, so a transfer costs time in proportion to
    /// the connections one multi handle holds. A loop configured for many connections spreads its
    /// transfers over several multi handles (``connectionsPerShard`` each), all driven by this
    /// one thread and epoll set; each keeps its own connections, so a transfer only ever walks
    /// its shard's. With the default limits there is one.
    private final class Shard {
        let multi: UnsafeMutableRawPointer
        let index: Int
        unowned(unsafe) let loop: CurlMultiLoop
        /// When libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` next, if at all.
        var timerDeadline: UInt64?
        /// How many times libcurl has set its timer.
        var timerSettings = 0
        /// The transfers libcurl runs on this shard.
        var activeCount = 0

        init(multi: UnsafeMutableRawPointer, index: Int, loop: CurlMultiLoop) {
            self.multi = multi
            self.index = index
            self.loop = loop
        }
    }

    /// The connections one multi handle is configured for, at most, before the loop adds
    /// another (``Shard``).
    static let connectionsPerShard = 256

    /// How many multi handles a loop configured for these connections uses.
    static func shardCount(maxConnections: Int, maxConnectionsPerHost: Int) -> Int {
        let connections = max(maxConnections, maxConnectionsPerHost, 1)
        return (connections + connectionsPerShard - 1) / connectionsPerShard
    }

    private var shards: [Shard] = []
    /// Whether each origin keeps to one shard (the one its name hashes to): so when one shard can
    /// hold all of a host's connections. Each multi handle keeps its own connections and applies
    /// the per-host limit to its own; a host spread over several could hold more in all.
    private let shardsByOrigin: Bool
    /// The epoll set of libcurl's sockets and of `wakeUpEvent`.
    private let epoll: Int32
    /// Written to wake the loop from `epoll_wait`.
    private let wakeUpEvent: Int32
    private let inbox = Locked(Inbox())
    private let idleHandles: Locked<[CurlEasyHandle]>
    private let maxIdleHandles: Int
    private let thread = Locked<pthread_t?>(nil)
    /// Transfers submitted and not handed back to their callers yet: once every call has ended,
    /// any left is a transfer nobody waits for (``CurlTransport/activeTransfers``).
    private let unfinishedTransfers = Atomic<Int>(0)

    /// Transfers submitted and not handed back yet.
    var unfinishedTransferCount: Int { unfinishedTransfers.load(ordering: .relaxed) }

    // Loop-thread state: only the loop thread touches it.
    /// The transfers libcurl is running, each at its ``CurlTransfer/activeIndex``: removing one
    /// moves the last into its place, with no hashing (a dictionary would hash twice per request,
    /// more work than the rest of the bookkeeping).
    private var active: [CurlTransfer] = []
    private var nextStallCheck: UInt64 = 0
    /// What the epoll set holds for one descriptor.
    private struct Watch {
        /// The events it is watched for; `0`: not in the set.
        var events: UInt32 = 0
        /// Whether libcurl waits on it; if not, it stays in the set only until it has an event.
        var isWanted = true
        /// Whether it is a connection socket, whose closing the loop hears of (`socketClosing`).
        var isConnection = false
        /// The shard whose multi handle it belongs to.
        var shard = 0
    }

    /// The epoll set's descriptors, by number. Only the loop thread touches it (and the multi
    /// handle's cleanup, after the thread ended).
    private var watched: [Watch] = []
    private let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: maxEventsPerWait)
    /// Callers to resume at the end of this turn.
    private var finished = ResumeBatch()
    /// Whether the loop cleaned the multi handle up when it shut down; read by `deinit`, which
    /// runs after the loop thread let go of the loop.
    private var isCleanedUp = false
    /// The transfers beyond the per-host connection limit, waiting for their turn.
    private var waiting: WaitingTransfers

    /// The CA file every easy handle trusts, if not the system's.
    private let certificateAuthorityFile: String?
    /// The TLS session cache of every easy handle (`nil` only if libcurl could not make one).
    private let share: CurlShare?
    /// Whether the environment named a proxy when the transport was made: read once, so that
    /// every handle of one transport agrees.
    private let usesProxyEnvironment = CurlEasyHandle.environmentNamesProxy()

    init?(
        maxConnections: Int, maxConnectionsPerHost: Int, maxQueuedRequests: Int,
        certificateAuthorityFile: String? = nil
    ) {
        guard CurlGlobal.initialize() else { return nil }
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeUpEvent = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        var wakeUpRegistration = epoll_event()
        wakeUpRegistration.events = EPOLLIN.rawValue
        wakeUpRegistration.data.fd = wakeUpEvent
        let shardCount = Self.shardCount(maxConnections: maxConnections, maxConnectionsPerHost: maxConnectionsPerHost)
        var multis: [UnsafeMutableRawPointer] = []
        for _ in 0..<shardCount {
            guard let multi = curl_multi_init() else { break }
            multis.append(multi)
        }
        guard epoll >= 0, wakeUpEvent >= 0,
            epoll_ctl(epoll, EPOLL_CTL_ADD, wakeUpEvent, &wakeUpRegistration) == 0,
            multis.count == shardCount
        else {
            if epoll >= 0 { close(epoll) }
            if wakeUpEvent >= 0 { close(wakeUpEvent) }
            for multi in multis { curl_multi_cleanup(multi) }
            return nil
        }
        self.epoll = epoll
        self.wakeUpEvent = wakeUpEvent
        self.certificateAuthorityFile = certificateAuthorityFile
        waiting = WaitingTransfers(connectionsPerOrigin: maxConnectionsPerHost, capacity: maxQueuedRequests)
        share = CurlShare()
        maxIdleHandles = max(16, maxConnections)
        shardsByOrigin = shardCount > 1 && maxConnectionsPerHost <= Self.connectionsPerShard
        idleHandles = Locked([])
        idleHandles.withLock { $0.reserveCapacity(maxIdleHandles) }
        // The transport's queue keeps each host within its limit across shards; each shard caches
        // its part of the idle connections.
        let cachedPerShard = (maxConnections + shardCount - 1) / shardCount
        for (index, multi) in multis.enumerated() {
            let shard = Shard(multi: multi, index: index, loop: self)
            shards.append(shard)
            _ = rebound_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, cachedPerShard)
            _ = rebound_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
            _ = rebound_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
            // The callbacks run only inside libcurl calls the loop makes, on its thread, and the
            // multi handles go before the loop and its shards do (deinit): an unretained
            // reference is enough.
            let unretained = Unmanaged.passUnretained(shard).toOpaque()
            _ = rebound_multi_setopt_socket_function(multi, Self.socketCallback)
            _ = rebound_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, unretained)
            _ = rebound_multi_setopt_timer_function(multi, Self.timerCallback)
            _ = rebound_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, unretained)
        }

        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<CurlMultiLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        guard created == 0 else {
            // deinit runs (every stored property is set) and cleans the multi handle up.
            Unmanaged<CurlMultiLoop>.fromOpaque(context).release()
            return nil
        }
        self.thread.withLock { $0 = thread }
    }

    deinit {
        if !isCleanedUp { cleanUpMultiHandles() }
        close(epoll)
        close(wakeUpEvent)
        events.deallocate()
    }

    // MARK: - Any thread

    /// A reset easy handle from the pool, or a new one.
    func acquireHandle() -> CurlEasyHandle? {
        if let handle = idleHandles.withLock({ $0.popLast() }) {
            handle.prepareForReuse()
            return handle
        }
        guard
            let handle = CurlTransfer.makeHandle(
                certificateAuthorityFile: certificateAuthorityFile, share: share,
                usesProxyEnvironment: usesProxyEnvironment)
        else { return nil }
        // The loop hears of every connection socket the handle opens and closes (``watch(_:events:)``).
        // The callbacks run inside libcurl calls the loop makes, or in the multi handle's cleanup.
        let unretained = Unmanaged.passUnretained(self).toOpaque()
        guard rebound_easy_setopt_sockopt_function(handle.raw, Self.socketOpened) == CURLE_OK,
            handle.set(CURLOPT_SOCKOPTDATA, pointer: unretained) == CURLE_OK,
            rebound_easy_setopt_closesocket_function(handle.raw, Self.socketClosing) == CURLE_OK,
            handle.set(CURLOPT_CLOSESOCKETDATA, pointer: unretained) == CURLE_OK
        else { return nil }
        return handle
    }

    /// Queues a command and wakes the loop if it sleeps. Returns false once the loop has shut down.
    @discardableResult
    func submit(_ command: Command) -> Bool {
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.isShutDown else { return (false, false) }
            if case .start = command { unfinishedTransfers.add(1, ordering: .relaxed) }
            inbox.commands.append(command)
            let wake = inbox.isPolling
            inbox.isPolling = false
            return (true, wake)
        }
        // The eventfd stays open until the loop is released, so the wake-up need not hold the
        // lock (the multi handle, which the loop cleans up at shutdown, is not involved).
        if wake { wakeUp() }
        return accepted
    }

    /// Ends every transfer with a cancellation, stops the thread and waits for it.
    ///
    /// Called on the loop's own thread (by a task on its executor, or by a transport released
    /// there), it cannot wait: the thread ends once the current turn is over, and is detached so
    /// that its stack goes with it rather than staying mapped for a join that never comes.
    func shutdown() {
        let wake = inbox.withLock { inbox -> Bool in
            let wasRunning = !inbox.isShutDown
            inbox.isShutDown = true
            return wasRunning
        }
        if wake { wakeUp() }
        guard
            let thread = self.thread.withLock({ thread in
                defer { thread = nil }; return thread
            })
        else { return }
        if pthread_equal(thread, pthread_self()) == 0 {
            pthread_join(thread, nil)
        } else {
            pthread_detach(thread)
        }
    }

    private func wakeUp() {
        var one: UInt64 = 1
        // Fails only when the counter is full, and then the loop is woken already.
        _ = write(wakeUpEvent, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: - Loop thread

    private func run() {
        var commands: [Command] = []
        commands.reserveCapacity(64)
        while true {
            let isShutDown = inbox.withLock { inbox -> Bool in
                swap(&inbox.commands, &commands)
                return inbox.isShutDown
            }
            if isShutDown {
                finishEverything(pending: commands)
                // Closes the connections libcurl keeps for later requests now, not when the
                // transport is released: an app may hold a transport it has shut down.
                cleanUpMultiHandles()
                isCleanedUp = true
                return
            }
            for command in commands {
                switch command {
                case .start(let transfer): start(transfer)
                case .cancel(let transfer): cancel(transfer)
                case .run(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
            commands.removeAll(keepingCapacity: true)

            runExpiredTimers(now: monotonicNanoseconds())
            // What the commands and the timers ended, so that the loop does not sleep on it.
            drainFinished()

            let now = monotonicNanoseconds()
            var wakeTime = now + 10_000_000_000
            if !active.isEmpty { wakeTime = nextStallCheck }
            for shard in shards {
                if let deadline = shard.timerDeadline { wakeTime = min(wakeTime, deadline) }
            }
            // The loop sleeps only with nothing to do; callers already finished are resumed after
            // a look at the sockets, which gathers the transfers that ended meanwhile.
            let mustSleep =
                finished.isEmpty
                && inbox.withLock { inbox -> Bool in
                    guard inbox.commands.isEmpty, !inbox.isShutDown else { return false }
                    inbox.isPolling = true
                    return true
                }
            // Rounded up: waking before libcurl's deadline would only turn the loop once more.
            let timeout = mustSleep ? Int32((wakeTime - min(now, wakeTime) + 999_999) / 1_000_000) : 0
            let ready = epoll_wait(epoll, events.baseAddress, Int32(events.count), timeout)
            if mustSleep { inbox.withLock { $0.isPolling = false } }
            for event in events.prefix(max(0, Int(ready))) {
                handle(event)
            }
            drainFinished()
            if !active.isEmpty {
                let now = monotonicNanoseconds()
                if now >= nextStallCheck {
                    checkStalls(now: now)
                    nextStallCheck = now + Self.stallCheckInterval
                }
            }
            // After the stall check, which may finish transfers too.
            finished.resumeAll()
        }
    }

    /// Lets libcurl run what the timers of its multi handles were set for, where they are due.
    ///
    /// libcurl calls its timer callback only when its next deadline changes. If it does not
    /// (its clock, which it reads in whole milliseconds, saw the deadline not quite reached), the
    /// same deadline stands, and the loop tries again a millisecond later rather than forget it.
    private func runExpiredTimers(now: UInt64) {
        for shard in shards {
            guard let deadline = shard.timerDeadline, now >= deadline else { continue }
            let settings = shard.timerSettings
            var running: Int32 = 0
            curl_multi_socket_action(shard.multi, CURL_SOCKET_TIMEOUT, 0, &running)
            if shard.timerSettings == settings {
                shard.timerDeadline = monotonicNanoseconds() + 1_000_000
            }
        }
    }

    private func cleanUpMultiHandles() {
        for shard in shards { curl_multi_cleanup(shard.multi) }
    }

    /// Hands one ready socket to libcurl, or empties the wake-up counter.
    private func handle(_ event: epoll_event) {
        let descriptor = event.data.fd
        if descriptor == wakeUpEvent {
            var count: UInt64 = 0
            _ = read(wakeUpEvent, &count, MemoryLayout<UInt64>.size)
            return
        }
        if Int(descriptor) < watched.count, !watched[Int(descriptor)].isWanted {
            // A socket libcurl let go, left in the set (unwatch): out now that it has something.
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
            watched[Int(descriptor)].events = 0
            return
        }
        var mask: Int32 = 0
        if event.events & EPOLLIN.rawValue != 0 { mask |= CURL_CSELECT_IN }
        if event.events & EPOLLOUT.rawValue != 0 { mask |= CURL_CSELECT_OUT }
        if event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { mask |= CURL_CSELECT_ERR }
        var running: Int32 = 0
        curl_multi_socket_action(shards[watched[Int(descriptor)].shard].multi, descriptor, mask, &running)
    }

    /// libcurl's `CURLMOPT_SOCKETFUNCTION`: keeps the epoll set to the sockets libcurl waits on.
    private static let socketCallback: curl_socket_callback = { _, socket, what, userp, socketp in
        guard let userp else { return 0 }
        let shard = Unmanaged<Shard>.fromOpaque(userp).takeUnretainedValue()
        if what == CURL_POLL_REMOVE {
            shard.loop.unwatch(socket)
        } else {
            var events: UInt32 = 0
            if what & CURL_POLL_IN != 0 { events |= EPOLLIN.rawValue }
            if what & CURL_POLL_OUT != 0 { events |= EPOLLOUT.rawValue }
            shard.loop.watch(socket, events: events, shard: shard.index)
        }
        return 0
    }

    /// Watches `socket` for `events` on behalf of `shard`'s multi handle.
    ///
    /// A connection socket kept in the set after libcurl let it go (``unwatch(_:)``) is changed
    /// only if libcurl now wants other events, and most often not at all: a connection's next
    /// transfer costs no system call.
    private func watch(_ socket: curl_socket_t, events: UInt32, shard: Int) {
        let index = Int(socket)
        if index >= watched.count { watched += repeatElement(Watch(), count: index + 1 - watched.count) }
        let current = watched[index]
        watched[index].events = events
        watched[index].isWanted = true
        watched[index].shard = shard
        if current.events == events { return }
        var registration = epoll_event()
        registration.events = events
        registration.data.fd = socket
        if current.events == 0 {
            if epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &registration) != 0, errno == EEXIST {
                _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &registration)
            }
        } else if epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &registration) != 0, errno == ENOENT {
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &registration)
        }
    }

    /// Stops watching `socket` for libcurl.
    ///
    /// libcurl lets a connection's socket go at the end of every transfer and takes it again for
    /// the next one on the same connection. A connection socket (one the loop will hear closed,
    /// ``socketClosing``) watched only for reading stays in the set, marked unwanted, so that the
    /// next transfer costs nothing; if it turns readable meanwhile (the server closed the idle
    /// connection), the loop removes it then (``handle(_:)``). Any other socket, such as one of
    /// the DNS resolver's, and a socket watched for writing, which would be reported ready all the
    /// time, is removed at once.
    private func unwatch(_ socket: curl_socket_t) {
        let index = Int(socket)
        guard index < watched.count, watched[index].events != 0 else { return }
        if watched[index].isConnection, watched[index].events & EPOLLOUT.rawValue == 0 {
            watched[index].isWanted = false
        } else {
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil)
            watched[index].events = 0
        }
    }

    /// libcurl's `CURLOPT_SOCKOPTFUNCTION`: a new connection socket. Whatever had its number
    /// before was closed, which took it out of the epoll set.
    ///
    /// libcurl opens it without close-on-exec; set here, a program the app starts does not hold
    /// the app's connections open.
    private static let socketOpened: curl_sockopt_callback = { userp, socket, _ in
        _ = fcntl(socket, F_SETFD, fcntl(socket, F_GETFD) | FD_CLOEXEC)
        guard let userp else { return CURL_SOCKOPT_OK }
        let loop = Unmanaged<CurlMultiLoop>.fromOpaque(userp).takeUnretainedValue()
        let index = Int(socket)
        if index >= loop.watched.count {
            loop.watched += repeatElement(Watch(), count: index + 1 - loop.watched.count)
        }
        loop.watched[index] = Watch(isConnection: true)
        return CURL_SOCKOPT_OK
    }

    /// libcurl's `CURLOPT_CLOSESOCKETFUNCTION`: takes a connection socket out of the epoll set,
    /// then closes it. (Closing alone would leave it in the set if another process still held it,
    /// a child forked meanwhile.)
    private static let socketClosing: curl_closesocket_callback = { userp, socket in
        if let userp {
            let loop = Unmanaged<CurlMultiLoop>.fromOpaque(userp).takeUnretainedValue()
            let index = Int(socket)
            if index < loop.watched.count {
                if loop.watched[index].events != 0 { _ = epoll_ctl(loop.epoll, EPOLL_CTL_DEL, socket, nil) }
                loop.watched[index] = Watch()
            }
        }
        return close(socket)
    }

    /// libcurl's `CURLMOPT_TIMERFUNCTION`: when the loop should next call
    /// `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` (`-1`: no timer). libcurl asks not to be
    /// called back from here, so the loop does it on its turn.
    private static let timerCallback: curl_multi_timer_callback = { _, milliseconds, userp in
        guard let userp else { return 0 }
        let shard = Unmanaged<Shard>.fromOpaque(userp).takeUnretainedValue()
        shard.timerSettings &+= 1
        shard.timerDeadline =
            milliseconds < 0 ? nil : monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
        return 0
    }

    private func start(_ transfer: CurlTransfer) {
        if transfer.isCancelled {
            finish(transfer, .cancelled, removeFromMulti: false)
            return
        }
        switch waiting.admit(transfer, now: monotonicNanoseconds()) {
        case .run: run(transfer)
        case .wait: break
        case .full: finish(transfer, .queueFull(waiting.capacity), removeFromMulti: false)
        }
    }

    /// Hands a transfer to libcurl: on its origin's shard when origins keep to one
    /// (``shardsByOrigin``), otherwise on the shard that runs the fewest, so that a finished
    /// transfer's shard, whose connection it freed, is the first to get the next one.
    private func run(_ transfer: CurlTransfer) {
        var shard = shards[0]
        if shardsByOrigin {
            shard = shards[Int(UInt(bitPattern: transfer.origin.hashValue) % UInt(shards.count))]
        } else {
            for candidate in shards.dropFirst() where candidate.activeCount < shard.activeCount {
                shard = candidate
            }
        }
        guard curl_multi_add_handle(shard.multi, transfer.easy.raw) == CURLM_OK else {
            finish(transfer, .unavailable("libcurl refused to add the transfer."), removeFromMulti: false)
            return
        }
        transfer.isActive = true
        transfer.shard = shard.index
        shard.activeCount += 1
        transfer.lastProgressTime = monotonicNanoseconds()
        transfer.activeIndex = active.count
        active.append(transfer)
    }

    /// Hands libcurl a transfer that waited for its turn, with what is left of its time limits.
    private func runAfterWaiting(_ transfer: CurlTransfer) {
        let now = monotonicNanoseconds()
        let waited = Int((now &- (transfer.queuedAt ?? now)) / 1_000_000)
        transfer.queuedAt = nil
        let options = transfer.options
        _ = transfer.easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, options.connectTimeout.curlMilliseconds - waited))
        _ = transfer.easy.set(CURLOPT_TIMEOUT_MS, max(1, options.timeout.curlMilliseconds - waited))
        run(transfer)
    }

    private func cancel(_ transfer: CurlTransfer) {
        if waiting.remove(transfer) {
            finish(transfer, .cancelled, removeFromMulti: false)
            return
        }
        guard transfer.isActive else { return }  // not started yet (start sees the flag) or already done
        finish(transfer, .cancelled, removeFromMulti: true)
    }

    private func drainFinished() {
        for shard in shards { drainFinished(shard) }
    }

    private func drainFinished(_ shard: Shard) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(shard.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE,
                let easy = message.pointee.easy_handle,
                let context = rebound_private(easy)
            else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let code = message.pointee.data.result
            finish(transfer, .completed(code, transfer.completion()), removeFromMulti: true)
        }
    }

    private func checkStalls(now: UInt64) {
        var stalled: [CurlTransfer] = []
        for transfer in active {
            if transfer.easy.info(offset: CURLINFO_PRETRANSFER_TIME_T) == 0 {
                // Waiting for a connection (queued behind the per-host limit, or connecting) is
                // not a stall: the connect timeout and the total timeout bound it.
                transfer.lastProgressTime = now
                continue
            }
            let moved = transfer.receiver.bytesReceived &+ transfer.bytesUploaded()
            if moved != transfer.lastProgressBytes {
                transfer.lastProgressBytes = moved
                transfer.lastProgressTime = now
            } else if now &- transfer.lastProgressTime >= transfer.stallTimeoutNanoseconds {
                stalled.append(transfer)
            }
        }
        for transfer in stalled { finish(transfer, .stalled, removeFromMulti: true) }
        for transfer in waiting.removeExpired(now: now) {
            // What libcurl reports for a transfer whose time ran out before it connected.
            let completion = CurlTransfer.Completion(
                status: 0, httpVersion: 0, newConnections: 0, pretransferMicroseconds: 0,
                timings: TransferTimings(),
                errorMessage: "Timed out waiting for a connection to the host, behind the per-host limit.")
            finish(transfer, .completed(CURLE_OPERATION_TIMEDOUT, completion), removeFromMulti: false)
        }
    }

    private func finish(_ transfer: CurlTransfer, _ outcome: CurlTransfer.Outcome, removeFromMulti: Bool) {
        if removeFromMulti { curl_multi_remove_handle(shards[transfer.shard].multi, transfer.easy.raw) }
        if transfer.isActive {
            transfer.isActive = false
            shards[transfer.shard].activeCount -= 1
            let last = active.removeLast()
            if last !== transfer {
                active[transfer.activeIndex] = last
                last.activeIndex = transfer.activeIndex
            }
        }
        if transfer.originState != nil {
            // It held one of its origin's places (it ran, or libcurl refused it): the next may go.
            var multiplexed = false
            if case .completed(_, let completion) = outcome {
                multiplexed = completion.httpVersion >= Int(CURL_HTTP_VERSION_2_0)
            }
            for next in waiting.finished(transfer, multiplexed: multiplexed) {
                runAfterWaiting(next)
            }
        }
        if !removeFromMulti {
            // libcurl never ran the transfer: the handle is as it was.
            recycle(transfer.easy)
        } else if case .completed(CURLE_OK, _) = outcome, !transfer.easy.hasResent {
            recycle(transfer.easy)
        }
        // Any other handle is let go (a new one costs a curl_easy_init, and only after a failure):
        // besides the re-sends `hasResent` sees, one that failed before its request went out (its
        // new connection refused, a timeout, a cancellation) leaves libcurl's count raised unseen.
        guard let continuation = transfer.continuation else { return }
        transfer.continuation = nil
        unfinishedTransfers.subtract(1, ordering: .relaxed)
        transfer.markHandedBack()
        if transfer.resumesOnLoop {
            continuation.resume(returning: outcome)
        } else {
            finished.append(continuation, outcome)
        }
    }

    private func recycle(_ handle: CurlEasyHandle) {
        let limit = maxIdleHandles
        idleHandles.withLock { idle in
            if idle.count < limit { idle.append(handle) }
        }
    }

    private func finishEverything(pending: [Command]) {
        // The waiting first, so that the running ones, as they end, start none of them. They
        // never started: the transport is gone for them, as for a request sent after shutdown.
        for transfer in waiting.removeAll() {
            finish(transfer, .unavailable("The transport was shut down."), removeFromMulti: false)
        }
        for transfer in active {
            finish(transfer, .cancelled, removeFromMulti: true)
        }
        for command in pending {
            switch command {
            case .start(let transfer):
                finish(transfer, .unavailable("The transport was shut down."), removeFromMulti: false)
            case .cancel: break
            case .run(let job): globalConcurrentExecutor.enqueue(job)
            }
        }
        finished.resumeAll()
    }

    private func rebound_private(_ easy: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        var value: UnsafeMutableRawPointer?
        _ = rebound_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &value)
        return value
    }
}

/// Callers waiting to be resumed with their transfers' outcomes, gathered during one turn.
private struct ResumeBatch {
    typealias Continuation = UnsafeContinuation<CurlTransfer.Outcome, Never>
    typealias Item = (continuation: Continuation, outcome: CurlTransfer.Outcome)

    /// What crosses to the task that resumes a batch: continuations may be resumed from any
    /// thread, and each outcome is read only by its caller once resumed. A class, so that the
    /// task owns the only reference to the items and can move them out rather than copy them
    /// (a copy of an outcome goes through the runtime's generic tuple witnesses).
    private final class Handover: @unchecked Sendable {
        /// Touched by one thread at a time: the loop, then the resuming task.
        var items: [Item]
        init(_ items: [Item]) { self.items = items }
    }

    private var items: [Item] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func append(_ continuation: Continuation, _ outcome: consuming CurlTransfer.Outcome) {
        items.append((continuation, outcome))
    }

    /// Resumes every caller gathered so far: one directly, several from one task, in the order
    /// their transfers finished.
    mutating func resumeAll() {
        switch items.count {
        case 0:
            return
        case 1:
            let (continuation, outcome) = items.removeLast()
            continuation.resume(returning: outcome)
        default:
            let handover = Handover(items)
            items = []
            items.reserveCapacity(handover.items.count)
            Task.detached {
                handover.items.reverse()
                while let (continuation, outcome) = handover.items.popLast() {
                    continuation.resume(returning: outcome)
                }
            }
        }
    }
}

/// The loop as an executor: tasks that prefer it run on the loop thread, between turns of the loop.
///
/// A request sent from such a task is picked up on the loop's next turn without waking anything,
/// and its result resumes the task on the same thread: no thread hop at either end. That is the
/// fastest way to drive many requests, at the price of running the task's own code on the thread
/// that does all the I/O, so it suits short code between requests (like SwiftNIO's event loops).
extension CurlMultiLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !submit(.run(job)) {
            // After shutdown the job must still run somewhere, or its task would hang.
            globalConcurrentExecutor.enqueue(job)
        }
    }
}
