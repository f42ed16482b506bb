import Foundation
import Logging
import Rebound

/// The build and session every reporting test records with.
enum ReportingFixture {
    static let build = BuildIdentity(version: "2.4.1", revision: "3f9c2ab")
    static let session = UUID(uuidString: "6F1C2A4E-0000-4000-8000-000000000001")!
    /// A whole second, so that reports survive the JSON round trip (milliseconds) unchanged.
    static let time = Date(timeIntervalSince1970: 1_740_000_000)

    static func configuration(
        maximumChainsPerSession: Int = 50,
        maximumReportsPerChain: Int = 5,
        queueCapacity: Int = 256,
        // Both far longer than delivery takes: with the real clock, a sink or a flush that is done
        // returns at once, and every test of the run shares two cores (more so under the thread
        // sanitizer). Tests of the timeouts themselves pass their own, with a test clock.
        sinkTimeout: Duration = .seconds(60),
        flushTimeout: Duration = .seconds(60),
        delivery: NonFatalReporter.Delivery = .queued
    ) -> NonFatalReporter.Configuration {
        NonFatalReporter.Configuration(
            build: build,
            sessionID: session,
            maximumChainsPerSession: maximumChainsPerSession,
            maximumReportsPerChain: maximumReportsPerChain,
            queueCapacity: queueCapacity,
            sinkTimeout: sinkTimeout,
            flushTimeout: flushTimeout,
            delivery: delivery
        )
    }

    static func reporter(
        _ sinks: [any ReportSink],
        configuration: NonFatalReporter.Configuration = configuration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> NonFatalReporter {
        NonFatalReporter(configuration: configuration, sinks: sinks, clock: clock, now: { time })
    }

    /// `LO43-PR<code>-NE2`: a distinct chain for every code.
    static func error(_ code: Int) -> LogicError {
        let network = NetworkError(.timeout, reason: "The request took longer than 60 seconds.")
        let probe = ProbeError(ProbeErrorCode(rawValue: code)!, cause: network)
        return LogicError(.loginFailed, cause: probe)
    }

    /// A temporary directory, removed by the caller with `FileManager.default.removeItem`.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rebound-reporting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// A layer with any code, so that tests can make as many distinct chains as they need.
struct ProbeErrorCode: ErrorCode {
    static let domain = "ProbeError"
    static let shortName = "PR"
    let rawValue: Int
    init?(rawValue: Int) { self.rawValue = rawValue }
    var name: String { "probe\(rawValue)" }
}

typealias ProbeError = LayerError<ProbeErrorCode>

/// A sink that keeps every report.
final class RecordingReportSink: ReportSink {
    private let received = Locked<[NonFatalReport]>([])

    var reports: [NonFatalReport] { received.withLock { $0 } }

    func receive(_ report: NonFatalReport) async throws {
        received.withLock { $0.append(report) }
    }
}

/// A synchronous sink that tells the two ways a report reaches it apart, and counts its flushes.
final class SynchronousRecordingSink: SynchronousReportSink {
    enum Event: Equatable {
        case written(Int)
        case received(Int)
        case flushed
    }

    private let recorded = Locked<[Event]>([])
    private let failing: Bool

    /// - Parameter failing: Whether `receiveSynchronously` throws (after noting the report).
    init(failing: Bool = false) { self.failing = failing }

    /// What happened, in order; reports by sequence number.
    var events: [Event] { recorded.withLock { $0 } }
    var written: [Int] { events.compactMap { if case .written(let sequence) = $0 { sequence } else { nil } } }
    var received: [Int] { events.compactMap { if case .received(let sequence) = $0 { sequence } else { nil } } }

    func receiveSynchronously(_ report: NonFatalReport) throws {
        recorded.withLock { $0.append(.written(report.sequence)) }
        if failing { throw FailingReportSink.Failure() }
    }

    func receive(_ report: NonFatalReport) async throws {
        recorded.withLock { $0.append(.received(report.sequence)) }
    }

    func flush() async throws {
        recorded.withLock { $0.append(.flushed) }
    }
}

/// A sink that takes every report but fails, or hangs until cancelled, when asked to flush.
struct UnflushableReportSink: ReportSink {
    var hangs = false

    func receive(_ report: NonFatalReport) async throws {}

    func flush() async throws {
        if hangs {
            let stream = AsyncStream<Never> { _ in }
            for await _ in stream {}
        }
        throw FailingReportSink.Failure()
    }
}

/// A sink that always throws.
struct FailingReportSink: ReportSink {
    struct Failure: Error {}

    func receive(_ report: NonFatalReport) async throws {
        throw Failure()
    }
}

/// A sink that never finishes a delivery until it is cancelled.
final class HangingReportSink: ReportSink {
    private let state = Locked((started: 0, cancelled: 0))

    var started: Int { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    func receive(_ report: NonFatalReport) async throws {
        state.withLock { $0.started += 1 }
        let stream = AsyncStream<Never> { _ in }
        for await _ in stream {}
        state.withLock { $0.cancelled += 1 }
        throw CancellationError()
    }
}
