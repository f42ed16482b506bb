public import Rebound

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a set of reports says: the most frequent chains, the most widespread, the builds, and what
/// changed against a baseline.
///
/// Pure: it reads `NonFatalReport` values (from files, with ``JSONLinesReportReader``) and
/// computes; `rebound report` prints it.
///
/// ## Definitions
///
/// - **Occurrences** of a chain: the sum of `NonFatalReport.occurrences` over its
///   `NonFatalReport.Kind.occurrence` and `NonFatalReport.Kind.repeats` reports, so repeats
///   counted by the reporters are included.
/// - **Sessions** of a chain: the distinct sessions with a report of it. The sessions of a data
///   set are the distinct sessions of all its reports; sessions that reported nothing are not in
///   any file, so rates are per *reporting* session.
/// - **Dropped**: the occurrences that reporters dropped (their `NonFatalReport.Kind.drops`
///   reports), which are in no chain's count.
///
/// Counts come from files and may be anything a line says: every sum stops at `Int.max` instead
/// of overflowing.
///
/// Against a baseline (reports from an earlier period or earlier builds):
///
/// - **New**: the chain has no report in the baseline at all.
/// - **Regressed**: the chain is in the baseline, but not in the baseline's *last build*, and it is
///   back now. The last build is the build of the baseline's most recent report (by time).
/// - **Growing**: the chain is in both (and not regressed), it occurred at least
///   ``Options/minimumGrowingOccurrences`` times now, and its occurrences per session now are at
///   least ``Options/growthFactor`` times the baseline's. Dividing by sessions keeps a busier
///   period from looking like a regression.
public struct ReportAnalysis: Hashable, Sendable, Codable {
    /// How much to show, and what counts as growing.
    public struct Options: Hashable, Sendable {
        /// The length of the top lists; 10 by default, what fits a terminal and what a team
        /// reviewing errors regularly can act on.
        public var top: Int
        /// How many times its baseline rate per session a chain must reach to be growing; 2 by
        /// default, a doubling: well past the week-to-week noise of a stable chain.
        public var growthFactor: Double
        /// The fewest occurrences of a growing chain; 10 by default, so that 1 → 2 occurrences
        /// is not called growth.
        public var minimumGrowingOccurrences: Int

        public init(top: Int = 10, growthFactor: Double = 2, minimumGrowingOccurrences: Int = 10) {
            self.top = max(0, top)
            self.growthFactor = growthFactor
            self.minimumGrowingOccurrences = max(0, minimumGrowingOccurrences)
        }
    }

    /// Counts of a whole data set.
    public struct Totals: Hashable, Sendable, Codable {
        /// Reports read, of every kind.
        public var reports: Int
        /// Occurrences of all chains.
        public var occurrences: Int
        /// Distinct sessions.
        public var sessions: Int
        /// Distinct chains.
        public var chains: Int
        /// Occurrences that reporters dropped.
        public var droppedOccurrences: Int
    }

    /// One chain's counts.
    public struct ChainSummary: Hashable, Sendable, Codable {
        public var chain: String
        public var fullChain: String
        public var occurrences: Int
        public var sessions: Int
        /// The hosts that reported it; `nil` when all reports come from one host.
        public var hosts: Int?
    }

    /// One build's counts.
    public struct BuildSummary: Hashable, Sendable, Codable {
        public var build: BuildIdentity
        public var occurrences: Int
        public var sessions: Int
        public var chains: Int
    }

    /// One host's counts, and its builds'.
    public struct HostSummary: Hashable, Sendable, Codable {
        /// The host reports name (`NonFatalReport.host`); `nil` for the reports that name none,
        /// such as those written before reports had a host, which are counted as one host.
        public var host: String?
        public var occurrences: Int
        public var sessions: Int
        public var chains: Int
        /// The host's builds, most occurrences first.
        public var builds: [BuildSummary]

        private enum CodingKeys: String, CodingKey {
            case host, occurrences, sessions, chains, builds
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // `null`, not a missing key: the unknown host is a row like the others.
            try container.encode(host, forKey: .host)
            try container.encode(occurrences, forKey: .occurrences)
            try container.encode(sessions, forKey: .sessions)
            try container.encode(chains, forKey: .chains)
            try container.encode(builds, forKey: .builds)
        }
    }

    /// A chain that is back after being absent from the baseline's last build.
    public struct RegressedChain: Hashable, Sendable, Codable {
        public var chain: String
        public var fullChain: String
        public var occurrences: Int
        public var sessions: Int
        /// The baseline build that reported it most recently.
        public var lastSeenBuild: BuildIdentity
    }

    /// A chain whose rate per session grew.
    public struct GrowingChain: Hashable, Sendable, Codable {
        public var chain: String
        public var fullChain: String
        public var occurrences: Int
        public var ratePerSession: Double
        public var baselineOccurrences: Int
        public var baselineRatePerSession: Double
        /// `ratePerSession / baselineRatePerSession`.
        public var growth: Double
    }

    /// The comparison with a baseline.
    public struct Comparison: Hashable, Sendable, Codable {
        public var baselineTotals: Totals
        /// The build of the baseline's most recent report.
        public var baselineLastBuild: BuildIdentity?
        /// Chains not in the baseline, most occurrences first.
        public var newChains: [ChainSummary]
        /// Chains back after being absent from the baseline's last build, most occurrences first.
        public var regressedChains: [RegressedChain]
        /// Chains growing per session, fastest first.
        public var growingChains: [GrowingChain]
        /// The growth factor the growing chains reached (``Options/growthFactor``).
        public var growthFactor: Double
        /// The fewest occurrences of a growing chain (``Options/minimumGrowingOccurrences``).
        public var minimumGrowingOccurrences: Int
    }

    public var totals: Totals
    /// The chains with the most occurrences, at most ``Options/top``.
    public var topByOccurrences: [ChainSummary]
    /// The chains that affected the most sessions, at most ``Options/top``.
    public var topBySessions: [ChainSummary]
    /// Every build, most occurrences first.
    public var builds: [BuildSummary]
    /// The hosts with the most occurrences, at most ``Options/top``, each with its builds; `nil`
    /// when all reports come from one host (or name none), so that the analysis of one machine's
    /// reports is what it was before reports had a host.
    public var hosts: [HostSummary]?
    /// The comparison with the baseline, when one was given.
    public var comparison: Comparison?

    /// Analyses `reports`, and compares them with `baseline` if it is given.
    ///
    /// - Parameters:
    ///   - reports: The reports to analyse.
    ///   - baseline: Earlier reports to compare with; `nil` for no comparison.
    ///   - options: How much to show and what counts as growing.
    public init(reports: [NonFatalReport], baseline: [NonFatalReport]? = nil, options: Options = Options()) {
        self.init(tally: ReportTally(reports), baseline: baseline.map { ReportTally($0) }, options: options)
    }

    /// Analyses the reports counted in `tally`, and compares them with `baseline` if it is given.
    ///
    /// - Parameters:
    ///   - tally: The reports to analyse, as ``JSONLinesReportReader`` counted them.
    ///   - baseline: Earlier reports to compare with; `nil` for no comparison.
    ///   - options: How much to show and what counts as growing.
    public init(tally: ReportTally, baseline: ReportTally? = nil, options: Options = Options()) {
        let current = tally
        totals = current.totals
        let all = current.chainSummaries
        topByOccurrences = Array(all.sorted(by: Self.byOccurrences).prefix(options.top))
        topBySessions = Array(
            all.sorted {
                ($0.sessions, $0.occurrences, $1.chain) > ($1.sessions, $1.occurrences, $0.chain)
            }.prefix(options.top))
        builds = current.buildSummaries
        hosts = current.hasSeveralHosts ? Array(current.hostSummaries.prefix(options.top)) : nil
        comparison = baseline.map { Self.compare(current, with: $0, options: options) }
    }

    private static func byOccurrences(_ a: ChainSummary, _ b: ChainSummary) -> Bool {
        (a.occurrences, a.sessions, b.chain) > (b.occurrences, b.sessions, a.chain)
    }

    private static func compare(_ current: ReportTally, with baseline: ReportTally, options: Options) -> Comparison {
        let lastBuild = baseline.lastBuild
        // Once, not per chain: each is a walk over every chain.
        let sessions = max(1, current.totals.sessions)
        let baselineSessions = max(1, baseline.totals.sessions)
        var new: [ChainSummary] = []
        var regressed: [RegressedChain] = []
        var growing: [GrowingChain] = []
        for summary in current.chainSummaries {
            guard let baselineOccurrences = baseline.occurrences(of: summary.chain) else {
                new.append(summary)
                continue
            }
            if let lastBuild, !baseline.build(lastBuild, reported: summary.chain),
                let lastSeen = baseline.lastSeenBuild(of: summary.chain)
            {
                regressed.append(
                    RegressedChain(
                        chain: summary.chain,
                        fullChain: summary.fullChain,
                        occurrences: summary.occurrences,
                        sessions: summary.sessions,
                        lastSeenBuild: lastSeen
                    )
                )
                continue
            }
            let rate = Double(summary.occurrences) / Double(sessions)
            let baselineRate = Double(baselineOccurrences) / Double(baselineSessions)
            if summary.occurrences >= options.minimumGrowingOccurrences, baselineRate > 0,
                rate >= options.growthFactor * baselineRate
            {
                growing.append(
                    GrowingChain(
                        chain: summary.chain,
                        fullChain: summary.fullChain,
                        occurrences: summary.occurrences,
                        ratePerSession: rate,
                        baselineOccurrences: baselineOccurrences,
                        baselineRatePerSession: baselineRate,
                        growth: rate / baselineRate
                    )
                )
            }
        }
        return Comparison(
            baselineTotals: baseline.totals,
            baselineLastBuild: lastBuild,
            newChains: new.sorted(by: byOccurrences),
            regressedChains: regressed.sorted { ($0.occurrences, $1.chain) > ($1.occurrences, $0.chain) },
            growingChains: growing.sorted { ($0.growth, $1.chain) > ($1.growth, $0.chain) },
            growthFactor: options.growthFactor,
            minimumGrowingOccurrences: options.minimumGrowingOccurrences
        )
    }
}

extension ReportTally {
    var chainSummaries: [ReportAnalysis.ChainSummary] {
        chains.map { chain in
            ReportAnalysis.ChainSummary(
                chain: chain.name,
                fullChain: chain.fullChain,
                occurrences: chain.occurrences,
                sessions: chain.sessions.count,
                hosts: hasSeveralHosts ? chain.hosts.count : nil
            )
        }
    }

    var buildSummaries: [ReportAnalysis.BuildSummary] {
        Self.summaries(of: builds.indices.map { (Int32($0), builds[$0]) }, identities: buildIdentities)
    }

    var hostSummaries: [ReportAnalysis.HostSummary] {
        hosts.map { host in
            ReportAnalysis.HostSummary(
                host: host.name,
                occurrences: host.occurrences,
                sessions: host.sessions.count,
                chains: host.chains.count,
                builds: Self.summaries(of: host.builds.map { ($0.key, $0.value) }, identities: buildIdentities)
            )
        }
        .sorted { ($0.occurrences, $1.host ?? "") > ($1.occurrences, $0.host ?? "") }
    }

    private static func summaries(of builds: [(Int32, Build)], identities: [BuildIdentity])
        -> [ReportAnalysis.BuildSummary]
    {
        builds.map { number, build in
            ReportAnalysis.BuildSummary(
                build: identities[Int(number)],
                occurrences: build.occurrences,
                sessions: build.sessions.count,
                chains: build.chains.count
            )
        }
        .sorted { ($0.occurrences, $1.build.description) > ($1.occurrences, $0.build.description) }
    }
}
