import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import TestSupport
import Testing

/// Every way a server or the network can fail a call, sent through `APIDataManager` with the
/// built-in handlers over the real libcurl transport (docs/reliability.md lists what each promises).
///
/// Each fault must end the call in its expected short chain, within its deadline plus a fixed 2 s
/// of slack, after the attempts the limits allow and no more; no handler but the one for
/// temporary errors may act on any of them. After the whole matrix and the transport's
/// `shutdown()`, the process has as many open file descriptors as before it.
///
/// `make test` runs the matrix alone in its process, never beside other tests: on two cores they
/// can hold the concurrency runtime's threads for seconds, and a retry within a 5 s deadline
/// then meets the deadline instead. The bound on time and the count of descriptors are checked
/// when `REBOUND_FAULT_MATRIX` is set, as `make fault-matrix` does (it also prints the table of
/// chains, attempts and overshoots), on `make test`'s build with the address sanitizer too; under
/// the thread sanitizer, which slows every call several times, only the chains, attempts and
/// requests are.
@Suite(.serialized) struct FaultMatrixTests {
    enum SampleCode: Int, ErrorCode {
        static let domain = "APIError"
        static let shortName = "AP"
        case listTasksFailed = 8
    }

    struct Item: Decodable { var id: Int }

    static let list = Endpoint<[Item], SampleCode>(.get, "/tasks", errorCode: .listTasksFailed)

    /// What the route answers when no fault hits: what the endpoint decodes, 40 tasks in 392 bytes.
    static let tasks = LoopbackRoute("GET", "/tasks") { _ in
        .json("[" + (1...40).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]")
    }

    /// Where a case's requests go.
    enum Server: Sendable {
        /// The loopback server, every request to it hit by the fault.
        case loopback(LoopbackFault)
        /// A port bound but never listening: every connection is refused.
        case refusingConnections
        /// A name under `.invalid` (RFC 6761), which never resolves.
        case unresolvableName
        /// nginx over TLS with a certificate the transport does not trust.
        case untrustedCertificate
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var server: Server
        var chain: String
        /// The attempts the limits and the handlers allow: 1 for a failure no retry fixes, the
        /// limits' `maxAttempts` for one that may pass, fewer when the deadline or a
        /// `Retry-After` ends the call first.
        var attempts: Int
        /// Requests the loopback server receives per attempt (more than one for redirects).
        var requestsPerAttempt = 1
        var limits = FaultMatrixTests.limits
        var options = FaultMatrixTests.options

        var testDescription: String { name }
    }

    /// Three attempts within 5 s, 2 s each: short, so that the matrix stays fast, and long enough
    /// for a machine whose two cores every test of the run shares.
    static let limits = RequestLimits(maxAttempts: 3, deadline: .seconds(5), attemptTimeout: .seconds(2))
    /// A stall limit of 1 s, under the attempt timeout so that a stall is told from a slow answer,
    /// and a body limit of 100 KB.
    static let options = TransportOptions(stallTimeout: .seconds(1), maxResponseBodySize: 100_000)

    static let cases: [Case] = [
        Case(name: "connection refused", server: .refusingConnections, chain: "AP8-RE1-NE6", attempts: 3),
        Case(name: "reset before any answer", server: .loopback(.resetBeforeAnswer), chain: "AP8-RE1-NE7", attempts: 3),
        Case(name: "reset mid-head", server: .loopback(.resetMidHead), chain: "AP8-RE1-NE7", attempts: 3),
        Case(name: "reset mid-body", server: .loopback(.cutMidBody(then: .reset)), chain: "AP8-RE1-NE7", attempts: 3),
        Case(name: "closed mid-body", server: .loopback(.cutMidBody(then: .close)), chain: "AP8-RE1-NE8", attempts: 3),
        Case(name: "empty reply", server: .loopback(.closeBeforeAnswer), chain: "AP8-RE1-NE7", attempts: 3),
        Case(name: "malformed status line", server: .loopback(.malformedStatusLine), chain: "AP8-NE16", attempts: 1),
        Case(name: "head past the size limit", server: .loopback(.oversizedHead()), chain: "AP8-NE13", attempts: 1),
        Case(
            name: "body past the size limit", server: .loopback(.oversizedBody(bytes: 200_000)), chain: "AP8-NE13",
            attempts: 1),
        Case(
            name: "compressed body inflating past the limit", server: .loopback(.compressionBomb()),
            chain: "AP8-NE13", attempts: 1),
        Case(name: "wrong Content-Encoding", server: .loopback(.wrongContentEncoding), chain: "AP8-NE16", attempts: 1),
        Case(name: "chunked framing error", server: .loopback(.brokenChunkedFraming), chain: "AP8-NE16", attempts: 1),
        Case(
            name: "disagreeing Content-Lengths", server: .loopback(.disagreeingContentLengths), chain: "AP8-NE16",
            attempts: 1),
        // A body byte every 100 ms is never silent for the stall limit (2.5 s, room for a machine
        // busy with the whole suite under a sanitizer): the attempt timeout ends it, with about
        // 30 of its 392 bytes received. One attempt, to keep the case short.
        Case(
            name: "slow drip (1 body byte per 100 ms)", server: .loopback(.dripBody(every: .milliseconds(100))),
            chain: "AP8-NE2", attempts: 1,
            limits: RequestLimits(maxAttempts: 1, deadline: .seconds(5), attemptTimeout: .seconds(3)),
            options: TransportOptions(stallTimeout: .milliseconds(2500), maxResponseBodySize: 100_000)),
        Case(name: "stall", server: .loopback(.stall), chain: "AP8-RE1-NE4", attempts: 3),
        // A stall whose attempt outlasts the deadline: the deadline ends the call.
        Case(
            name: "stall past the deadline", server: .loopback(.stall), chain: "AP8-RE2-NE2", attempts: 1,
            limits: RequestLimits(maxAttempts: 3, deadline: .seconds(1), attemptTimeout: .seconds(10)),
            options: TransportOptions(stallTimeout: .seconds(30))),
        Case(
            name: "redirect loop", server: .loopback(.redirectLoop), chain: "AP8-NE11", attempts: 1,
            requestsPerAttempt: 6),
        // libcurl counts every head, interim ones included, against its 300 KiB.
        Case(name: "1xx flood", server: .loopback(.interimFlood()), chain: "AP8-NE13", attempts: 1),
        Case(
            name: "503 storm, Retry-After 1", server: .loopback(.overloaded(retryAfter: "1")),
            chain: "AP8-RE1-HT503", attempts: 3),
        Case(
            name: "429 storm, no Retry-After", server: .loopback(.overloaded(status: 429)),
            chain: "AP8-RE1-HT429", attempts: 3),
        Case(
            name: "503 storm, Retry-After huge", server: .loopback(.overloaded(retryAfter: "99999999999999999999")),
            chain: "AP8-RE3-HT503", attempts: 1),
        Case(
            name: "429 storm, Retry-After negative", server: .loopback(.overloaded(status: 429, retryAfter: "-5")),
            chain: "AP8-RE1-HT429", attempts: 3),
        Case(
            name: "503 storm, Retry-After past date",
            server: .loopback(.overloaded(retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT")),
            chain: "AP8-RE1-HT503", attempts: 3),
        Case(
            name: "429 storm, Retry-After malformed", server: .loopback(.overloaded(status: 429, retryAfter: "soon")),
            chain: "AP8-RE1-HT429", attempts: 3),
        Case(name: "malformed JSON", server: .loopback(.malformedJSON), chain: "AP8-JS5-DE4", attempts: 1),
        Case(name: "partial JSON", server: .loopback(.partialBody), chain: "AP8-JS5-DE4", attempts: 1),
        Case(name: "TLS with an untrusted certificate", server: .untrustedCertificate, chain: "AP8-NE10", attempts: 1),
        Case(name: "name that does not resolve", server: .unresolvableName, chain: "AP8-NE5", attempts: 1),
    ]

    /// What one case measured.
    struct Outcome {
        var chain: String
        var attempts: Int
        var requests: Int?
        var elapsed: Duration
        var handlersMisfired: Bool
    }

    @Test func everyFaultEndsInItsChainWithinItsDeadlineAfterTheAttemptsAllowed() async throws {
        let alone = !(ProcessInfo.processInfo.environment["REBOUND_FAULT_MATRIX"] ?? "").isEmpty
        if alone {
            try await Self.warmUp()
        }
        let descriptorsBefore = try openDescriptors()
        let targetsBefore = try descriptorTargets()
        let transport = CurlTransport()
        var rows: [[String]] = []
        for fault in Self.cases {
            guard let outcome = try await Self.run(fault, over: transport) else {
                rows.append([fault.name, "skipped: needs nginx and openssl (scripts/setup.sh)", "", ""])
                continue
            }
            #expect(outcome.chain == fault.chain, "\(fault.name)")
            #expect(outcome.attempts == fault.attempts, "\(fault.name)")
            if let requests = outcome.requests {
                #expect(requests == fault.attempts * fault.requestsPerAttempt, "\(fault.name): requests")
            }
            // The thread sanitizer slows every call several times: its run leaves the bound out.
            if alone {
                #expect(outcome.elapsed <= fault.limits.deadline + .seconds(2), "\(fault.name): \(outcome.elapsed)")
            }
            #expect(!outcome.handlersMisfired, "\(fault.name): the auth or captcha handler acted")
            let overshoot = max(.zero, outcome.elapsed - fault.limits.deadline)
            rows.append([
                fault.name, outcome.chain, "\(outcome.attempts)/\(fault.limits.maxAttempts)",
                Self.seconds(outcome.elapsed), Self.seconds(fault.limits.deadline), Self.seconds(overshoot),
            ])
        }
        transport.shutdown()
        let descriptorsAfter = try await descriptorsSettled(at: descriptorsBefore)
        guard alone else { return }
        print(Self.table(rows, descriptors: (descriptorsBefore, descriptorsAfter)))
        let opened = try descriptorTargets().subtracting(targetsBefore).sorted()
        #expect(
            descriptorsAfter == descriptorsBefore,
            "open file descriptors before and after the matrix; opened since: \(opened)")
    }

    /// Opens what the process keeps open once it has used them (SwiftNIO's shared event loops,
    /// the timers of the concurrency runtime's clocks, what libcurl's resolver and TLS library
    /// keep): runs every case once over a
    /// transport of its own, so that the measured pass starts from a process that has done it all.
    static func warmUp() async throws {
        let transport = CurlTransport()
        for fault in cases {
            _ = try await run(fault, over: transport)
        }
        transport.shutdown()
    }

    /// Sends the case's call and measures how it ends; `nil` when the case needs nginx and it is
    /// missing.
    static func run(_ fault: Case, over transport: CurlTransport) async throws -> Outcome? {
        var server: LoopbackServer?
        var tls: TLSServerFixture?
        var reservation: Int32?
        defer {
            tls?.stop()
            reservation.map { _ = close($0) }
        }
        let baseURL: String
        switch fault.server {
        case .loopback(let injected):
            let loopback = try await LoopbackServer.start(routes: [tasks])
            loopback.faults.inject(LoopbackFaultRule(fault: injected))
            server = loopback
            baseURL = loopback.baseURL
        case .refusingConnections:
            let socket = try boundLoopbackSocket()
            reservation = socket
            baseURL = "http://127.0.0.1:\(try boundPort(of: socket))"
        case .unresolvableName:
            baseURL = "http://rebound-fault-matrix.invalid"
        case .untrustedCertificate:
            guard TLSServerFixture.isAvailable else { return nil }
            let fixture = try await TLSServerFixture.start()
            tls = fixture
            baseURL = "https://127.0.0.1:\(fixture.tlsPort)"
        }
        let misfired = Locked(false)
        let api = try dataManager(
            baseURL: baseURL, transport: transport, limits: fault.limits, options: fault.options, misfired: misfired)
        let clock = ContinuousClock()
        let start = clock.now
        let chain: String
        let attempts: Int
        do {
            let answer = try await api.response(for: list)
            (chain, attempts) = ("success", answer.history.attempts.count)
        } catch {
            (chain, attempts) = (error.chain.short, error.attachment(AttemptHistory.self)?.attempts.count ?? -1)
        }
        let elapsed = clock.now - start
        let requests = server?.requests(to: "/tasks")
        try await server?.shutdown()
        return Outcome(
            chain: chain, attempts: attempts, requests: requests, elapsed: elapsed,
            handlersMisfired: misfired.withLock { $0 })
    }

    /// A data manager with the three built-in handlers, the temporary-error one with short backoff;
    /// the auth and captcha handlers raise `misfired` if they ever act.
    static func dataManager(
        baseURL: String,
        transport: CurlTransport,
        limits: RequestLimits,
        options: TransportOptions,
        budget: RetryBudget = RetryBudget(),
        misfired: Locked<Bool>
    ) throws -> APIDataManager {
        try APIDataManager(
            baseURL: baseURL,
            transport: transport,
            handlers: [
                BackendTemporaryErrorHandler(
                    configuration: .init(
                        backoff: Backoff(base: .milliseconds(10), multiplier: 2, cap: .milliseconds(50), jitter: .full)),
                    budget: budget, random: SeededRandom(seed: 22)),
                AuthRefreshHandler(store: InMemoryCredentialStore(Credential(accessToken: "matrix"))) { _ in
                    misfired.withLock { $0 = true }
                    return Credential(accessToken: "refreshed")
                },
                CaptchaRequiredHandler(
                    solve: { _ in
                        misfired.withLock { $0 = true }
                        return "answer"
                    },
                    verify: { _, _ in misfired.withLock { $0 = true } }),
            ],
            limits: limits,
            transportOptions: options
        )
    }

    /// The number of open file descriptors, after waiting (at most 5 s) for it to come back to
    /// `expected`: a server's connections close on its event loop a moment after `shutdown()`.
    func descriptorsSettled(at expected: Int) async throws -> Int {
        var count = try openDescriptors()
        for _ in 0..<100 where count != expected {
            try await Task.sleep(for: .milliseconds(50))
            count = try openDescriptors()
        }
        return count
    }

    /// The process's open file descriptors that a transport could leave open (sockets, pipes,
    /// files), counted in /proc/self/fd (the one that lists them is closed before they are read,
    /// so it drops out). Event loops' anonymous
    /// inodes (an epoll, an eventfd, a timerfd) are left out: SwiftNIO and libdispatch start
    /// loops of their own lazily, at moments that differ from run to run, and keep them for good;
    /// the transport's own loop wakes up through a socket pair, which is counted.
    func openDescriptors() throws -> Int {
        try descriptorTargets().count { !$0.contains(" -> anon_inode:") }
    }

    /// What each open descriptor refers to (`"7 -> socket:[1234]"`), to name the ones a failing
    /// check finds left open.
    func descriptorTargets() throws -> Set<String> {
        let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return Set(
            names.compactMap { name in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))
                    .map { "\(name) -> \($0)" }
            })
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f s", Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// The matrix as a Markdown table, as `make fault-matrix` prints it.
    static func table(_ rows: [[String]], descriptors: (before: Int, after: Int)) -> String {
        let header = ["fault", "chain", "attempts", "took", "deadline", "overshoot"]
        let lines = [header, header.map { _ in "---" }] + rows
        return "\n" + lines.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
            + "\n\nOpen file descriptors: \(descriptors.before) before the matrix, \(descriptors.after) after it"
            + " and the transport's shutdown().\n"
    }
}
