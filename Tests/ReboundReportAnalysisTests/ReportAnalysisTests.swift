import Foundation
import ReboundReportAnalysis
import Testing

@testable import Rebound

@Suite struct ReportAnalysisTests {
    static let v1 = BuildIdentity(version: "1.0", revision: "aaa1111")
    static let v2 = BuildIdentity(version: "1.1", revision: "bbb2222")
    static let v3 = BuildIdentity(version: "1.2", revision: "ccc3333")

    /// A report of the chain `LO43-PR<code>-NE2`.
    static func report(
        _ code: Int,
        occurrences: Int = 1,
        kind: NonFatalReport.Kind = .occurrence,
        session: Int,
        build: BuildIdentity = v3,
        day: Int = 10
    ) -> NonFatalReport {
        NonFatalReport(
            kind: kind,
            error: AnalysisFixture.chain(code),
            file: "App/File.swift",
            line: 1,
            function: "f()",
            time: AnalysisFixture.time.addingTimeInterval(Double(day) * 86_400),
            build: build,
            session: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", session))!,
            occurrences: occurrences
        )
    }

    /// Chain 1: 10 occurrences in 2 sessions; chain 2: 3 occurrences in 3 sessions; chain 3: 1.
    static let current: [NonFatalReport] = [
        report(1, session: 1), report(1, occurrences: 6, kind: .repeats, session: 1),
        report(1, session: 2), report(1, occurrences: 2, kind: .repeats, session: 2),
        report(2, session: 3), report(2, session: 4), report(2, session: 5, build: v2),
        report(3, session: 5, build: v2),
        NonFatalReport(
            kind: .drops, error: ErrorChain(links: []), file: "", line: 0, function: "", time: AnalysisFixture.time,
            build: v3, session: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, occurrences: 4),
    ]

    @Test func topChainsCountRepeatsAndSessions() {
        let analysis = ReportAnalysis(reports: Self.current)
        #expect(analysis.totals.occurrences == 14)
        #expect(analysis.totals.sessions == 5)
        #expect(analysis.totals.chains == 3)
        #expect(analysis.totals.reports == 9)
        #expect(analysis.totals.droppedOccurrences == 4)
        #expect(analysis.topByOccurrences.map(\.chain) == ["LO43-PR1-NE2", "LO43-PR2-NE2", "LO43-PR3-NE2"])
        #expect(analysis.topByOccurrences.map(\.occurrences) == [10, 3, 1])
        #expect(analysis.topBySessions.map(\.chain) == ["LO43-PR2-NE2", "LO43-PR1-NE2", "LO43-PR3-NE2"])
        #expect(analysis.topBySessions.map(\.sessions) == [3, 2, 1])
        #expect(analysis.topByOccurrences.first?.fullChain == AnalysisFixture.chain(1).full)
        #expect(ReportAnalysis(reports: Self.current, options: .init(top: 1)).topByOccurrences.count == 1)
    }

    @Test func buildsAreBrokenDown() {
        let analysis = ReportAnalysis(reports: Self.current)
        #expect(analysis.builds.map(\.build) == [Self.v3, Self.v2])
        #expect(analysis.builds.map(\.occurrences) == [12, 2])
        #expect(analysis.builds.map(\.sessions) == [4, 1])
        #expect(analysis.builds.map(\.chains) == [2, 2])
    }

    @Test func againstABaselineChainsAreNewRegressedOrGrowing() throws {
        // Baseline: 4 sessions. Chain 1 occurred once per session in v1 and v2 (rate 4 / 4 = 1);
        // chain 3 occurred in v1 only, and v2 is the baseline's last build; chain 4 is gone.
        let baseline: [NonFatalReport] = [
            Self.report(1, session: 11, build: Self.v1, day: 1),
            Self.report(1, session: 12, build: Self.v1, day: 2),
            Self.report(1, session: 13, build: Self.v2, day: 3),
            Self.report(1, session: 14, build: Self.v2, day: 4),
            Self.report(3, session: 11, build: Self.v1, day: 1),
            Self.report(4, session: 12, build: Self.v2, day: 2),
        ]
        let analysis = ReportAnalysis(reports: Self.current, baseline: baseline)
        let comparison = try #require(analysis.comparison)
        #expect(comparison.baselineLastBuild == Self.v2)
        #expect(comparison.baselineTotals.sessions == 4)
        #expect(comparison.newChains.map(\.chain) == ["LO43-PR2-NE2"])
        #expect(comparison.regressedChains.map(\.chain) == ["LO43-PR3-NE2"])
        #expect(comparison.regressedChains.first?.lastSeenBuild == Self.v1)
        // Chain 1: 10 occurrences in 5 sessions now (2 per session), 1 per session before: ×2.
        #expect(comparison.growingChains.map(\.chain) == ["LO43-PR1-NE2"])
        let growing = try #require(comparison.growingChains.first)
        #expect(growing.ratePerSession == 2)
        #expect(growing.baselineRatePerSession == 1)
        #expect(growing.growth == 2)

        // Below the minimum count, or short of the factor, a chain is not growing.
        let strict = ReportAnalysis(
            reports: Self.current, baseline: baseline, options: .init(growthFactor: 2.5))
        #expect(strict.comparison?.growingChains.isEmpty == true)
        let rare = ReportAnalysis(
            reports: Self.current, baseline: baseline, options: .init(minimumGrowingOccurrences: 11))
        #expect(rare.comparison?.growingChains.isEmpty == true)
    }

    @Test func theTextHasBarChartsAndEverySection() {
        let baseline = [
            Self.report(3, session: 11, build: Self.v1, day: 1), Self.report(4, session: 12, build: Self.v2),
        ]
        let text = ReportAnalysis(reports: Self.current, baseline: baseline).renderedText(barWidth: 10)
        #expect(text.contains("14 occurrences of 3 chains in 5 sessions (9 reports)"))
        #expect(text.contains("  LO43-PR1-NE2  ██████████  10 in 2 sessions"))
        #expect(text.contains("  LO43-PR2-NE2  ███         3 in 3 sessions"))
        #expect(text.contains("  LO43-PR3-NE2  █           1 in 1 session"))
        #expect(text.contains("By build"))
        #expect(text.contains("1.2 (ccc3333)"))
        #expect(text.contains("New chains (not in the baseline)"))
        #expect(text.contains("Regressed chains (in the baseline, absent from 1.1 (bbb2222), back now)"))
        #expect(text.contains("LO43-PR3-NE2  1 in 1 session, last seen in 1.0 (aaa1111)"))
        #expect(text.contains("Growing chains"))
        #expect(text.contains("Dropped by the reporters (caps, full queues): 4 occurrences"))
    }

    @Test func aCountOfOneReadsInTheSingular() {
        // Found running `rebound report` on a file of one report: "1 occurrences of 1 chains in
        // 1 sessions (1 reports)".
        let text = ReportAnalysis(reports: [Self.report(1, session: 1)], baseline: [Self.report(2, session: 11)])
            .renderedText(barWidth: 10)
        #expect(text.contains("1 occurrence of 1 chain in 1 session (1 report)\n"))
        #expect(text.contains("  LO43-PR1-NE2  ██████████  1 session, 1 occurrence\n"))
        #expect(text.contains("1 in 1 session, 1 chain\n"))
        #expect(text.contains("Against the baseline (1 occurrence in 1 session; its last build"))
        #expect(!text.contains(" 1 occurrences") && !text.contains(" 1 chains") && !text.contains(" 1 sessions"))
    }

    @Test func controlCharactersFromTheFilesCannotRewriteTheTerminal() {
        let crafted = BuildIdentity(version: "9.9\u{1B}[2J", revision: "abc\r\nFORGED LINE")
        let text = ReportAnalysis(reports: [Self.report(1, session: 1, build: crafted)]).renderedText()
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
        #expect(text.contains("9.9\\u{1B}[2J"))
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("FORGED") })
    }

    @Test func countsPastIntMaxSaturateAndStillRenderInsteadOfTrapping() throws {
        // Report files are input: a line may carry any count JSON can hold. Two of Int.max, a build
        // and a drops total past it, and a growth of about 4.6e18 must neither trap nor wrap around.
        let drops = NonFatalReport(
            kind: .drops, error: ErrorChain(links: []), file: "", line: 0, function: "", time: AnalysisFixture.time,
            build: Self.v3, session: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, occurrences: .max)
        let reports = [
            Self.report(1, occurrences: .max, session: 1),
            Self.report(1, occurrences: .max, kind: .repeats, session: 1),
            Self.report(2, occurrences: .max, session: 2),
            drops, drops,
        ]
        let analysis = ReportAnalysis(reports: reports, baseline: [Self.report(1, session: 11)])
        #expect(analysis.totals.occurrences == .max)
        #expect(analysis.totals.droppedOccurrences == .max)
        #expect(analysis.topByOccurrences.map(\.occurrences) == [.max, .max])
        #expect(analysis.builds.map(\.occurrences) == [.max])
        let growing = try #require(analysis.comparison?.growingChains.first)
        #expect(growing.growth > 1e18)

        let text = analysis.renderedText(barWidth: 10)
        #expect(text.contains("9223372036854775807 occurrences of 2 chains in 2 sessions (5 reports)"))
        #expect(text.contains("  LO43-PR1-NE2  ██████████  9223372036854775807 in 1 session"))
        #expect(text.contains("1.00 → 4.611686018427388e+18 per session (×4.611686018427388e+18"))
    }

    @Test func theAnalysisEncodesAsJSONAndBack() throws {
        let analysis = ReportAnalysis(reports: Self.current, baseline: [Self.report(1, session: 11)])
        let data = try JSONEncoder().encode(analysis)
        #expect(try JSONDecoder().decode(ReportAnalysis.self, from: data) == analysis)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(
            Set(object?.keys.map { $0 } ?? []) == [
                "totals", "topByOccurrences", "topBySessions", "builds", "comparison",
            ])
    }
}
