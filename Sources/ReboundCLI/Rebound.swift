import ArgumentParser

/// The `rebound` command: Rebound's recovery pipeline from a shell.
///
/// ```
/// rebound fetch URL [options]      a request through BackendTemporaryErrorHandler over libcurl
/// rebound simulate [options]       the waits a retry policy would choose, without sending anything
/// rebound report FILE… [options]   top chains and trends of non-fatal reports
/// rebound load URL [options]       many calls through the pipeline and its overload protections
/// ```
///
/// Exit statuses are listed in ``FetchExitCode`` and in `docs/cli.md`. The executable
/// (`Sources/ReboundTool`) runs it through ``ReboundCommandLine/main()``.
struct Rebound: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebound",
        abstract:
            "Send HTTP requests through Rebound's recovery pipeline, explore retry schedules, analyse failure reports.",
        discussion: """
            `fetch` sends one request the way an app built on Rebound would: failures that pass by \
            themselves (408, 429, 502, 503, 504, timeouts, refused or reset connections) are retried with \
            exponential backoff and jitter, within a per-attempt timeout and an overall deadline, and \
            every attempt is reported. `simulate` prints the waits a retry policy would choose, drawn \
            by the same code, without sending anything. `report` reads non-fatal reports (JSON lines \
            written by Rebound's reporter) and shows the top chains, builds, and new, regressed and \
            growing chains against a baseline. `load` drives a URL with many calls, in a closed or \
            an open loop, through the same pipeline with a circuit breaker, an adaptive rate limiter \
            or a concurrency limit, and reports what reached the server and what was refused.

            Examples:
              rebound fetch https://api.example.com/v1/tasks
              rebound fetch --json --seed 42 https://api.example.com/v1/tasks
              rebound simulate --max-attempts 6 --jitter equal --samples 10 --seed 7
              rebound report reports/*.jsonl --baseline last-week/*.jsonl
              rebound load --rate 200 --duration 30 --breaker https://api.example.com/v1/tasks

            Exit status: 0 success, 1 the server's last answer was not 2xx (for load: a call \
            failed), 3 no answer (network failure), 64 invalid arguments, 66 a report file cannot \
            be read.
            """,
        subcommands: [FetchCommand.self, SimulateCommand.self, ReportCommand.self, LoadCommand.self]
    )
}
