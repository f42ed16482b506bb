import HTTPTypes
import Rebound
import ReboundCurl

/// One run of `rebound load`: the workers that take the schedule's tickets and make the calls,
/// through one data manager, and what they recorded.
struct LoadRun {
    var target: FetchTarget
    var schedule: LoadSchedule
    /// The handler list, given the recorder the breaker reports its transitions to.
    var handlers: (LoadRecorder) -> [any RecoverableErrorHandler]
    var limits: RequestLimits
    /// How each call is hedged; `nil` for one attempt at a time.
    var hedging: HedgingPolicy?

    /// Makes every call of the schedule and reports them, showing progress on `progress` meanwhile.
    func perform(showingProgress progress: ProgressLine) async throws -> LoadReport {
        let recorder = LoadRecorder(pipelineStart: TimeSource.system.now())
        // A connection per attempt in flight (a call and its hedges): with fewer, attempts would
        // queue in libcurl for a connection and the latencies would measure that queue, not the server.
        let connections = schedule.workers * (1 + (hedging?.maxHedges ?? 0))
        let transport = CurlTransport(
            configuration: .init(
                maxCachedConnections: max(CurlTransport.Configuration().maxCachedConnections, connections),
                maxConnectionsPerHost: max(CurlTransport.Configuration().maxConnectionsPerHost, connections)
            ))
        defer { transport.shutdown() }
        let api = try APIDataManager(
            baseURL: target.baseURL, transport: transport, handlers: handlers(recorder), limits: limits,
            monitor: recorder)
        var configured = Endpoint<TransportResponse, FetchErrorCode>(
            raw: .get, target.pathAndQuery, errorCode: .requestFailed)
        configured.options.hedging = hedging
        let endpoint = configured
        let schedule = schedule
        let clock = ContinuousClock()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<schedule.workers {
                group.addTask {
                    while let due = schedule.nextDue(now: clock.now) {
                        if due > clock.now { try? await clock.sleep(until: due) }
                        var failure: ErrorChain?
                        do {
                            _ = try await api.send(endpoint)
                        } catch {
                            failure = error.chain
                        }
                        recorder.recordCall(latency: due.duration(to: clock.now), failure: failure)
                    }
                    return true
                }
            }
            if progress.isShown {
                group.addTask {
                    while !Task.isCancelled {
                        progress.show(Self.progressText(recorder.current, since: schedule.start))
                        try? await Task.sleep(for: ProgressLine.interval)
                    }
                    return false
                }
            }
            var workersLeft = schedule.workers
            while workersLeft > 0, let isWorker = await group.next() {
                if isWorker { workersLeft -= 1 }
            }
            group.cancelAll()
        }
        let elapsed = schedule.start.duration(to: clock.now)
        progress.finish()
        return LoadReport(recorder.current, elapsed: elapsed)
    }

    /// `1520 calls (1498 ok, 22 failed), 1544 attempts, 7.6 s`
    private static func progressText(_ tally: LoadRecorder.Tally, since start: ContinuousClock.Instant) -> String {
        let elapsed = start.duration(to: .now).secondsValue
        return "\(tally.calls) calls (\(tally.succeeded) ok, \(tally.failed) failed), \(tally.attempts) attempts, "
            + "\(elapsed.threeDecimals.dropLast(2)) s"
    }
}
