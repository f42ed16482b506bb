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
    }

    /// One build's counts.
    public struct BuildSummary: Hashable, Sendable, Codable {
        public var build: BuildIdentity
        public var occurrences: Int
        public var sessions: Int
        public var chains: Int
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
    /// The comparison with the baseline, when one was given.
    public var comparison: Comparison?

    /// Analyses `reports`, and compares them with `baseline` if it is given.
    ///
    /// - Parameters:
    ///   - reports: The reports to analyse.
    ///   - baseline: Earlier reports to compare with; `nil` for no comparison.
    ///   - options: How much to show and what counts as growing.
    public init(reports: [NonFatalReport], baseline: [NonFatalReport]? = nil, options: Options = Options()) {
        let current = Tally(reports)
        totals = current.totals
        let all = current.chainSummaries
        topByOccurrences = Array(all.sorted(by: Self.byOccurrences).prefix(options.top))
        topBySessions = Array(
            all.sorted {
                ($0.sessions, $0.occurrences, $1.chain) > ($1.sessions, $1.occurrences, $0.chain)
            }.prefix(options.top))
        builds = current.buildSummaries
        comparison = baseline.map { Self.compare(current, with: Tally($0), options: options) }
    }

    private static func byOccurrences(_ a: ChainSummary, _ b: ChainSummary) -> Bool {
        (a.occurrences, a.sessions, b.chain) > (b.occurrences, b.sessions, a.chain)
    }

    private static func compare(_ current: Tally, with baseline: Tally, options: Options) -> Comparison {
        let lastBuild = baseline.lastBuild
        let lastBuildChains = lastBuild.map { baseline.chainsByBuild[$0] ?? [] } ?? []
        var new: [ChainSummary] = []
        var regressed: [RegressedChain] = []
        var growing: [GrowingChain] = []
        for summary in current.chainSummaries {
            guard let baselineOccurrences = baseline.occurrences[summary.chain] else {
                new.append(summary)
                continue
            }
            if lastBuild != nil, !lastBuildChains.contains(summary.chain),
                let lastSeen = baseline.lastSeenBuild[summary.chain]
            {
                regressed.append(
                    RegressedChain(
                        chain: summary.chain,
                        fullChain: summary.fullChain,
                        occurrences: summary.occurrences,
                        sessions: summary.sessions,
                        lastSeenBuild: lastSeen.build
                    )
                )
                continue
            }
            let rate = Double(summary.occurrences) / Double(max(1, current.totals.sessions))
            let baselineRate = Double(baselineOccurrences) / Double(max(1, baseline.totals.sessions))
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

/// The counts of one data set.
private struct Tally {
    var occurrences: [String: Int] = [:]
    var sessions: [String: Set<UUID>] = [:]
    var fullChains: [String: String] = [:]
    var allSessions: Set<UUID> = []
    var buildOccurrences: [BuildIdentity: Int] = [:]
    var buildSessions: [BuildIdentity: Set<UUID>] = [:]
    var chainsByBuild: [BuildIdentity: Set<String>] = [:]
    var lastSeenBuild: [String: (time: Date, build: BuildIdentity)] = [:]
    var lastBuild: BuildIdentity?
    var totals: ReportAnalysis.Totals

    init(_ reports: [NonFatalReport]) {
        var dropped = 0
        var latest: Date?
        for report in reports {
            allSessions.insert(report.session)
            guard report.kind != .drops else {
                dropped = dropped.addingSaturated(report.occurrences)
                continue
            }
            occurrences[report.chain] = occurrences[report.chain, default: 0].addingSaturated(report.occurrences)
            sessions[report.chain, default: []].insert(report.session)
            if fullChains[report.chain] == nil { fullChains[report.chain] = report.fullChain }
            buildOccurrences[report.build] = buildOccurrences[report.build, default: 0].addingSaturated(
                report.occurrences)
            buildSessions[report.build, default: []].insert(report.session)
            chainsByBuild[report.build, default: []].insert(report.chain)
            if lastSeenBuild[report.chain].map({ report.time >= $0.time }) ?? true {
                lastSeenBuild[report.chain] = (report.time, report.build)
            }
            if latest.map({ report.time >= $0 }) ?? true {
                latest = report.time
                lastBuild = report.build
            }
        }
        totals = ReportAnalysis.Totals(
            reports: reports.count,
            occurrences: occurrences.values.reduce(0) { $0.addingSaturated($1) },
            sessions: allSessions.count,
            chains: occurrences.count,
            droppedOccurrences: dropped
        )
    }

    var chainSummaries: [ReportAnalysis.ChainSummary] {
        occurrences.map { chain, count in
            ReportAnalysis.ChainSummary(
                chain: chain,
                fullChain: fullChains[chain] ?? "",
                occurrences: count,
                sessions: sessions[chain]?.count ?? 0
            )
        }
    }

    var buildSummaries: [ReportAnalysis.BuildSummary] {
        buildOccurrences.map { build, count in
            ReportAnalysis.BuildSummary(
                build: build,
                occurrences: count,
                sessions: buildSessions[build]?.count ?? 0,
                chains: chainsByBuild[build]?.count ?? 0
            )
        }
        .sorted { ($0.occurrences, $1.build.description) > ($1.occurrences, $0.build.description) }
    }
}

extension Int {
    /// `self + other`, or the bound it overflows past: `Int.max` (or `Int.min`).
    fileprivate func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
