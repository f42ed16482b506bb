public import Rebound

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The counts of one data set, added to report by report: what ``ReportAnalysis`` is computed from.
///
/// Its memory grows with the distinct chains, sessions, builds and hosts it has seen, never with
/// the number of reports: a tally of millions of reports over a few thousand sessions and a few
/// hundred chains takes a few megabytes. ``JSONLinesReportReader`` fills one as it reads.
///
/// ```swift
/// var tally = ReportTally()
/// try JSONLinesReportReader().read(["reports/"], into: &tally)
/// let analysis = ReportAnalysis(tally: tally)
/// ```
public struct ReportTally: Sendable {
    /// One chain's counts.
    struct Chain: Sendable {
        var name: String
        var fullChain: String
        var occurrences = 0
        var sessions: Set<Int32> = []
        var hosts: Set<Int32> = []
        /// Its most recent report's time and build.
        var lastSeen: (time: Date, build: Int32)?
    }

    /// One build's counts, or one build's on one host.
    struct Build: Sendable {
        var occurrences = 0
        var sessions: Set<Int32> = []
        var chains: Set<Int32> = []
    }

    /// One host's counts.
    struct Host: Sendable {
        var name: String?
        var occurrences = 0
        var sessions: Set<Int32> = []
        var chains: Set<Int32> = []
        var builds: [Int32: Build] = [:]
    }

    /// How many reports were added, of every kind.
    public private(set) var reports = 0
    /// Occurrences that reporters dropped (their `drops` reports).
    private(set) var droppedOccurrences = 0

    private(set) var chains: [Chain] = []
    private var chainIndex: [String: Int32] = [:]
    private var sessionIndex: [UUID: Int32] = [:]
    private(set) var buildIdentities: [BuildIdentity] = []
    private var buildIndex: [BuildIdentity: Int32] = [:]
    private(set) var builds: [Build] = []
    private(set) var hosts: [Host] = []
    private var hostIndex: [String?: Int32] = [:]
    /// The build of the most recent report, by time (the later one of equal times).
    private var latest: (time: Date, build: Int32)?

    public init() {}

    /// Adds the reports of `reports`, in order.
    public init(_ reports: some Sequence<NonFatalReport>) {
        for report in reports { add(report) }
    }

    /// Adds one report.
    public mutating func add(_ report: NonFatalReport) {
        add(
            kind: report.kind, chain: report.chain, fullChain: { report.fullChain }, time: report.time,
            build: report.build, session: report.session, occurrences: report.occurrences, host: report.host)
    }

    /// Adds one report, given by the fields the analysis reads; `fullChain` is asked for only
    /// when the chain is new.
    mutating func add(
        kind: NonFatalReport.Kind,
        chain: String,
        fullChain: () -> String,
        time: Date,
        build: BuildIdentity,
        session: UUID,
        occurrences: Int,
        host: String?
    ) {
        reports += 1
        let sessionNumber = Self.number(of: session, in: &sessionIndex).number
        guard kind != .drops else {
            droppedOccurrences = droppedOccurrences.addingSaturated(occurrences)
            return
        }
        let (chainNumber, newChain) = Self.number(of: chain, in: &chainIndex)
        if newChain { chains.append(Chain(name: chain, fullChain: fullChain())) }
        let (buildNumber, newBuild) = Self.number(of: build, in: &buildIndex)
        if newBuild {
            buildIdentities.append(build)
            builds.append(Build())
        }
        let (hostNumber, newHost) = Self.number(of: host, in: &hostIndex)
        if newHost { hosts.append(Host(name: host)) }

        chains[Int(chainNumber)].count(
            occurrences, session: sessionNumber, host: hostNumber, time: time, build: buildNumber)
        builds[Int(buildNumber)].count(occurrences, session: sessionNumber, chain: chainNumber)
        hosts[Int(hostNumber)].count(occurrences, session: sessionNumber, chain: chainNumber, build: buildNumber)
        if latest.map({ time >= $0.time }) ?? true {
            latest = (time, buildNumber)
        }
    }

    /// The number of `key` in `index`, a new one (the next) if it has none yet.
    private static func number<Key: Hashable>(of key: Key, in index: inout [Key: Int32]) -> (number: Int32, isNew: Bool)
    {
        if let known = index[key] { return (known, false) }
        let next = Int32(index.count)
        index[key] = next
        return (next, true)
    }

    // MARK: - What the analysis reads

    var totals: ReportAnalysis.Totals {
        ReportAnalysis.Totals(
            reports: reports,
            occurrences: chains.reduce(0) { $0.addingSaturated($1.occurrences) },
            sessions: sessionIndex.count,
            chains: chains.count,
            droppedOccurrences: droppedOccurrences
        )
    }

    /// The build of the most recent report.
    var lastBuild: BuildIdentity? { latest.map { buildIdentities[Int($0.build)] } }

    func occurrences(of chain: String) -> Int? {
        chainIndex[chain].map { chains[Int($0)].occurrences }
    }

    /// Whether `build` reported `chain`.
    func build(_ build: BuildIdentity, reported chain: String) -> Bool {
        guard let buildNumber = buildIndex[build], let chainNumber = chainIndex[chain] else { return false }
        return builds[Int(buildNumber)].chains.contains(chainNumber)
    }

    /// The build of the most recent report of `chain`.
    func lastSeenBuild(of chain: String) -> BuildIdentity? {
        chainIndex[chain].flatMap { chains[Int($0)].lastSeen }.map { buildIdentities[Int($0.build)] }
    }

    /// Whether the reports come from more than one host (reports without one count as one host).
    var hasSeveralHosts: Bool { hosts.count > 1 }
}

extension ReportTally.Chain {
    fileprivate mutating func count(_ occurrences: Int, session: Int32, host: Int32, time: Date, build: Int32) {
        self.occurrences = self.occurrences.addingSaturated(occurrences)
        sessions.insert(session)
        hosts.insert(host)
        if lastSeen.map({ time >= $0.time }) ?? true {
            lastSeen = (time, build)
        }
    }
}

extension ReportTally.Build {
    fileprivate mutating func count(_ occurrences: Int, session: Int32, chain: Int32) {
        self.occurrences = self.occurrences.addingSaturated(occurrences)
        sessions.insert(session)
        chains.insert(chain)
    }
}

extension ReportTally.Host {
    fileprivate mutating func count(_ occurrences: Int, session: Int32, chain: Int32, build: Int32) {
        self.occurrences = self.occurrences.addingSaturated(occurrences)
        sessions.insert(session)
        chains.insert(chain)
        builds[build, default: ReportTally.Build()].count(occurrences, session: session, chain: chain)
    }
}

extension Int {
    /// `self + other`, or the bound it overflows past: `Int.max` (or `Int.min`).
    func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
