import ArgumentParser

/// `reliability`: the release-mode measurements and the child process behind docs/reliability.md.
///
/// ```
/// reliability report-cost      what a report costs in each delivery mode
/// reliability record-reports   records reports until killed (the crash test's child)
/// ```
@main
struct Reliability: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reliability",
        abstract: "Measurements and test helpers for docs/reliability.md.",
        subcommands: [ReportCostCommand.self, RecordReportsCommand.self]
    )
}
