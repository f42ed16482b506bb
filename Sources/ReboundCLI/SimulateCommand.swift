import ArgumentParser
import Rebound

/// `rebound simulate`: the waits a retry policy would choose, without sending anything.
///
/// The waits come from ``Backoff/schedule(retries:using:)``: for each retry
/// ``Backoff/delay(forRetry:previous:using:)`` with the wait before it as `previous`, which is the
/// call ``BackendTemporaryErrorHandler`` makes before each retry. One ``SeededRandom``, seeded
/// once, draws every sample in turn, so samples are independent draws and a seed reproduces them
/// all; `fetch --seed S` waits what the first sample of `simulate --seed S` shows, unless the
/// server sends `Retry-After`.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Print the waits a retry policy would choose, without sending anything.",
        discussion: """
            Each sample is one request that fails every attempt: the max-attempts − 1 waits before \
            its retries, drawn by the same code BackendTemporaryErrorHandler runs. Without --json it \
            prints a table (a row per sample, a column per retry) and, per retry, the range the \
            jitter allows and a bar from the shortest to the longest wait, the mean marked o.

            Samples are drawn one after another from one generator. Without --seed the seed is \
            random and printed (on stderr with --json), so any run can be repeated; the same seed \
            and options always print the same waits, and fetch with that seed waits what the first \
            sample shows (unless the server sends Retry-After).

            Examples:
              rebound simulate
              rebound simulate --max-attempts 6 --jitter equal --samples 10 --seed 7
              rebound simulate --jitter decorrelated --max-delay 5 --samples 1000
              rebound simulate --json --seed 42 --samples 3
            """
    )

    /// The most samples one run draws: enough for a smooth spread, few enough to print.
    static let sampleRange = 1...10_000

    @OptionGroup(title: "Retry policy")
    var policy: RetryPolicyOptions

    @Option(
        help: ArgumentHelp(
            "How many requests to simulate (\(sampleRange.lowerBound)–\(sampleRange.upperBound)).", valueName: "n"))
    var samples = 5

    @Flag(help: "Print {\"samples\": [[seconds]]} on stdout instead of the table and chart.")
    var json = false

    func validate() throws {
        guard Self.sampleRange.contains(samples) else {
            throw ValidationError(
                "--samples must be from \(Self.sampleRange.lowerBound) to \(Self.sampleRange.upperBound) (got \(samples))."
            )
        }
    }

    func run() throws {
        let seed = policy.seed ?? UInt64.random(in: .min ... .max)
        let simulation = Simulation(
            backoff: policy.backoff,
            retries: policy.maxAttempts - 1,
            samples: samples,
            seed: seed
        )
        if json {
            StandardStreams.writeOutput(try JSONOutput.line(SimulationReport(simulation)))
            if policy.seed == nil {
                StandardStreams.writeError("seed \(seed): pass --seed \(seed) to repeat these waits")
            }
        } else {
            for line in simulation.textLines(maxAttempts: policy.maxAttempts) {
                StandardStreams.writeOutput(line: line)
            }
        }
    }
}
