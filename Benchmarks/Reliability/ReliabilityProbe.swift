import Rebound

/// An error layer with any code, so that every report of a run has a chain of its own and is a
/// first occurrence: repeats would be counted, not written.
struct ReliabilityProbeCode: ErrorCode {
    static let domain = "ReliabilityProbe"
    static let shortName = "RL"
    let rawValue: Int
    init?(rawValue: Int) { self.rawValue = rawValue }
    var name: String { "probe\(rawValue)" }
}

typealias ReliabilityProbe = LayerError<ReliabilityProbeCode>

extension ReliabilityProbe {
    /// `RL<number>-NE2`: a distinct chain per number, with a cause as real reports have.
    static func numbered(_ number: Int) -> ReliabilityProbe {
        let cause = NetworkError(.timeout, reason: "The request took longer than 60 seconds.")
        return ReliabilityProbe(ReliabilityProbeCode(rawValue: number)!, cause: cause)
    }
}

/// A reporter that sends every report of a run: no cap gets in the way of `reports` first
/// occurrences, and the queue holds them all.
func uncappedReporter(
    reports: Int,
    delivery: NonFatalReporter.Delivery,
    sink: JSONLinesReportSink
) -> NonFatalReporter {
    NonFatalReporter(
        configuration: .init(
            build: BuildIdentity(version: "0.0.0", revision: "reliability"),
            maximumChainsPerSession: reports,
            queueCapacity: reports,
            delivery: delivery
        ),
        sinks: [sink]
    )
}
