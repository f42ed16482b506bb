import Rebound

extension ReportAnalysis {
    /// The analysis as text for a terminal: bar charts of the top chains and of the builds, then
    /// the comparison with the baseline.
    ///
    /// ```
    /// 1290 occurrences of 4 chains in 57 sessions (142 reports)
    ///
    /// Top chains by occurrences
    ///   US14-LO43-AP7-NE2  ██████████████████████████████  812 in 40 sessions
    ///                      UserError.connectionIssue - LogicError.loginFailed - APIError.getTokenFailed - NetworkError.timeout
    ///   US4-AP103-JS3-DE3  ██████████                      270 in 31 sessions
    ///                      …
    /// ```
    ///
    /// Bars are scaled to the longest in their section; any non-zero count gets at least one block.
    /// Control and format characters in the files' text (a chain, a build) are written as Swift
    /// escapes, such as `\u{1B}`, so that a crafted file cannot rewrite the terminal.
    /// Rates have two decimals up to 10¹³; larger ones are shown as Swift prints a `Double`, such
    /// as `1e+17`.
    ///
    /// - Parameter barWidth: The length of the longest bar, in characters.
    /// - Returns: The text, ending with a newline.
    public func renderedText(barWidth: Int = 30) -> String {
        var lines: [String] = []
        lines.append(
            "\(Self.occurrences(totals.occurrences)) of \(Self.chains(totals.chains)) in "
                + "\(Self.sessions(totals.sessions)) (\(Self.counted(totals.reports, "report", "reports")))")
        if totals.droppedOccurrences > 0 {
            lines.append("Dropped by the reporters (caps, full queues): \(Self.occurrences(totals.droppedOccurrences))")
        }

        lines.append("")
        lines.append("Top chains by occurrences")
        lines += chart(
            topByOccurrences.map {
                (
                    $0.chain, $0.occurrences,
                    "\($0.occurrences) in \(Self.sessions($0.sessions))\(Self.onHosts($0.hosts))"
                )
            },
            details: topByOccurrences.map(\.fullChain),
            barWidth: barWidth
        )

        lines.append("")
        lines.append("Top chains by sessions")
        lines += chart(
            topBySessions.map {
                ($0.chain, $0.sessions, "\(Self.sessions($0.sessions)), \(Self.occurrences($0.occurrences))")
            },
            details: nil,
            barWidth: barWidth
        )

        lines.append("")
        lines.append("By build")
        lines += chart(
            builds.map {
                (
                    $0.build.description, $0.occurrences,
                    "\($0.occurrences) in \(Self.sessions($0.sessions)), \(Self.chains($0.chains))"
                )
            },
            details: nil,
            barWidth: barWidth
        )

        if let hosts {
            lines.append("")
            lines.append("By host (and its builds)")
            lines += chart(
                hosts.map {
                    (
                        $0.host ?? Self.unknownHost, $0.occurrences,
                        "\($0.occurrences) in \(Self.sessions($0.sessions)), \(Self.chains($0.chains))"
                    )
                },
                details: hosts.map { host in
                    host.builds.map { "\($0.build): \($0.occurrences)" }.joined(separator: ", ")
                },
                barWidth: barWidth
            )
        }

        if let comparison {
            lines.append("")
            let last = comparison.baselineLastBuild.map { "; its last build \($0)" } ?? ""
            lines.append(
                "Against the baseline (\(Self.occurrences(comparison.baselineTotals.occurrences)) in "
                    + "\(Self.sessions(comparison.baselineTotals.sessions))\(last))")

            lines.append("")
            lines.append("New chains (not in the baseline)")
            lines += list(comparison.newChains.map { ($0.chain, "\($0.occurrences) in \(Self.sessions($0.sessions))") })

            lines.append("")
            let absent = comparison.baselineLastBuild.map { "absent from \($0)" } ?? "absent from the last build"
            lines.append("Regressed chains (in the baseline, \(absent), back now)")
            lines += list(
                comparison.regressedChains.map {
                    ($0.chain, "\($0.occurrences) in \(Self.sessions($0.sessions)), last seen in \($0.lastSeenBuild)")
                })

            lines.append("")
            lines.append(
                "Growing chains (occurrences per session ×\(Self.rate(comparison.growthFactor)) or more, "
                    + "at least \(Self.occurrences(comparison.minimumGrowingOccurrences)))")
            lines += list(
                comparison.growingChains.map {
                    (
                        $0.chain,
                        "\(Self.rate($0.baselineRatePerSession)) → \(Self.rate($0.ratePerSession)) per session "
                            + "(×\(Self.rate($0.growth)), \(Self.occurrences($0.occurrences)))"
                    )
                })
        }
        // Chains and builds come from files that anyone may have written: a control character in
        // one must not move the cursor or forge a line.
        return lines.map(\.escapingControlCharacters).joined(separator: "\n") + "\n"
    }

    private func chart(_ rows: [(label: String, value: Int, note: String)], details: [String]?, barWidth: Int)
        -> [String]
    {
        guard !rows.isEmpty else { return ["  (none)"] }
        let barWidth = max(0, barWidth)
        let labelWidth = rows.map(\.label.count).max() ?? 0
        let maximum = rows.map(\.value).max() ?? 0
        var lines: [String] = []
        for (index, row) in rows.enumerated() {
            var length = 0
            if maximum > 0, row.value > 0 {
                // value × width ÷ maximum, the product in full width so that no count overflows it;
                // the quotient is at most `barWidth`, since no value passes the maximum.
                let scaled = maximum.dividingFullWidth(row.value.multipliedFullWidth(by: barWidth)).quotient
                length = max(1, scaled)
            }
            let bar = String(repeating: "█", count: length) + String(repeating: " ", count: barWidth - length)
            lines.append("  " + Self.padded(row.label, labelWidth) + "  " + bar + "  " + row.note)
            if let details, index < details.count, !details[index].isEmpty {
                lines.append("  " + String(repeating: " ", count: labelWidth) + "  " + details[index])
            }
        }
        return lines
    }

    private func list(_ rows: [(label: String, note: String)]) -> [String] {
        guard !rows.isEmpty else { return ["  (none)"] }
        let labelWidth = rows.map(\.label.count).max() ?? 0
        return rows.map { "  " + Self.padded($0.label, labelWidth) + "  " + $0.note }
    }

    /// How the reports without a host are named in the text.
    static let unknownHost = "unknown"

    /// ` on 3 hosts`, or nothing when the reports come from one host.
    private static func onHosts(_ count: Int?) -> String {
        count.map { " on \(counted($0, "host", "hosts"))" } ?? ""
    }

    private static func sessions(_ count: Int) -> String {
        counted(count, "session", "sessions")
    }

    private static func occurrences(_ count: Int) -> String {
        counted(count, "occurrence", "occurrences")
    }

    private static func chains(_ count: Int) -> String {
        counted(count, "chain", "chains")
    }

    /// `1 session`, `0 sessions`, `2 sessions`: a count of one reads in the singular.
    private static func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// Two decimals, without Foundation's locale-dependent formatting.
    ///
    /// Past 10¹³ a `Double` no longer holds every hundredth, and past about 9.2 × 10¹⁶ the
    /// hundredths no longer fit an `Int`: a larger value, or one that is not finite, is shown as
    /// Swift prints it.
    private static func rate(_ value: Double) -> String {
        guard value.isFinite, value.magnitude < 1e13 else { return "\(value)" }
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
