import Foundation

/// What one benchmark run does, as given on the command line.
///
/// Every client's executable, and the C program, read the same flags, so the script can drive them
/// alike:
///
/// ```
/// --client NAME --workload NAME --url URL --expect-bytes N [--requests N] [--warmup N] [--concurrency N]
/// ```
///
/// A known workload supplies the defaults of the last three (see ``Workload``).
struct BenchmarkOptions: Sendable {
    /// Which client to run, such as `rebound` or `urlsession`.
    var client: String
    /// The workload's name, echoed in the report.
    var workload: String
    /// The URL fetched by every request.
    var url: URL
    /// The body length every response must have.
    var expectedBodyBytes: Int
    /// How many requests are measured.
    var requests: Int
    /// How many requests run before measuring, to open connections and settle allocations.
    var warmup: Int
    /// How many requests are kept in flight.
    var concurrency: Int
    /// How many connections a client may open to the server (Rebound's `maxConnectionsPerHost`).
    var connections: Int

    static var usage: String {
        let workloads = Workload.allCases.map { workload in
            "  \(workload.rawValue): \(workload.requests) requests after \(workload.warmup), \(workload.concurrency) in flight"
        }
        return """
            usage: \(programName) --client NAME --workload NAME --url URL --expect-bytes N
                   [--requests N] [--warmup N] [--concurrency N] [--connections N]
            workloads and their defaults:
            \(workloads.joined(separator: "\n"))
            an unknown workload needs --requests and --warmup
            """
    }

    /// Reads the options from command-line arguments (without the program name).
    ///
    /// - Throws: A ``UsageError`` naming the first argument that is missing or malformed.
    static func parse(_ arguments: [String]) throws(UsageError) -> BenchmarkOptions {
        var values: [String: String] = [:]
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard flag.hasPrefix("--"), let value = remaining.popFirst() else {
                throw UsageError("expected '--flag value', found '\(flag)'")
            }
            values[String(flag.dropFirst(2))] = value
        }

        func required(_ name: String) throws(UsageError) -> String {
            guard let value = values.removeValue(forKey: name) else { throw UsageError("--\(name) is required") }
            return value
        }
        func count(_ name: String, default fallback: Int?, minimum: Int) throws(UsageError) -> Int {
            guard let text = values.removeValue(forKey: name) else {
                guard let fallback else { throw UsageError("--\(name) is required for this workload") }
                return fallback
            }
            guard let value = Int(text), value >= minimum else {
                throw UsageError("--\(name) needs an integer of at least \(minimum), not '\(text)'")
            }
            return value
        }

        let client = try required("client")
        let workloadName = try required("workload")
        let urlText = try required("url")
        guard let url = URL(string: urlText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError("--url needs an http or https URL, not '\(urlText)'")
        }
        let workload = Workload(rawValue: workloadName)
        let options = BenchmarkOptions(
            client: client,
            workload: workloadName,
            url: url,
            expectedBodyBytes: try count("expect-bytes", default: nil, minimum: 0),
            requests: try count("requests", default: workload?.requests, minimum: 1),
            warmup: try count("warmup", default: workload?.warmup, minimum: 0),
            concurrency: try count("concurrency", default: workload?.concurrency ?? 1, minimum: 1),
            connections: try count("connections", default: workload?.connections ?? 32, minimum: 1)
        )
        if let unknown = values.keys.sorted().first {
            throw UsageError("unknown flag --\(unknown)")
        }
        return options
    }
}

/// The workloads the transport benchmark script runs, with the sizes it runs them at by default.
///
/// The counts are large enough that a run lasts a few seconds on a 2-core machine, long enough to
/// drown the start-up of the process and the scheduler's noise, short enough for three rounds of
/// every client to finish in a few minutes.
enum Workload: String, CaseIterable, Sendable {
    /// Small JSON responses, one request at a time over one keep-alive connection: per-request overhead.
    case sequential
    /// Small JSON responses, 16 in flight: how the client scales over several connections.
    case concurrent16
    /// 1 MiB responses, one at a time: how the client moves and stores bytes.
    case download1m
    /// Small JSON responses, 1,000 in flight, each over its own connection: many connections.
    case concurrent1000
    /// Small JSON responses, 5,000 in flight, each over its own connection.
    case concurrent5000
    /// Small JSON responses, 1,000 in flight over 32 connections (the transport's default per-host
    /// limit): how fairly the calls that wait for a connection are served (p99 against p50).
    case queued1000

    var requests: Int {
        switch self {
        case .sequential: 20_000
        case .concurrent16, .concurrent1000, .concurrent5000, .queued1000: 40_000
        case .download1m: 500
        }
    }

    var warmup: Int {
        switch self {
        case .sequential, .concurrent16: 500
        case .download1m: 20
        case .concurrent1000, .queued1000: 1_000
        case .concurrent5000: 5_000
        }
    }

    var concurrency: Int {
        switch self {
        case .sequential, .download1m: 1
        case .concurrent16: 16
        case .concurrent1000, .queued1000: 1_000
        case .concurrent5000: 5_000
        }
    }

    /// The connections a client may open to the server: as many as the calls in flight, but for
    /// `queued1000`, which keeps the transport's default of 32.
    var connections: Int {
        self == .queued1000 ? 32 : max(32, concurrency)
    }
}

/// A command line the benchmark cannot run.
struct UsageError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
