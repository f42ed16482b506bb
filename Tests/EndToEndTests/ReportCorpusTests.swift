import Foundation
import Testing

/// The built `rebound report` on a generated corpus, against what the reader before the streaming
/// one printed for it (`Tests/Fixtures/ReportCorpus/README.md` says how the files were made).
@Suite(.timeLimit(.minutes(3)))
struct ReportCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ReportCorpus")

    /// `rebound report` with `arguments`, run in the corpus's directory so that the paths it
    /// prints are the ones the golden files have.
    static func report(_ arguments: [String]) async throws -> ExecutableRunner.Result {
        try await ExecutableRunner.run(
            executableURL: URL(fileURLWithPath: "/bin/bash"),
            [
                "-c", #"cd "$1" && shift && exec "$@""#, "bash", directory.path,
                try ExecutableRunner.executable("rebound").path, "report",
            ] + arguments,
            timeLimit: .seconds(60))
    }

    static func golden(_ name: String) throws -> String {
        try String(decoding: Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
    }

    @Test func theJSONOfACorpusWithOneHostIsWhatTheDecodingReaderPrinted() async throws {
        let result = try await Self.report(["--json", "--top", "1000", "current.jsonl", "--baseline", "baseline.jsonl"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stdoutText == (try Self.golden("report.golden.json")))
    }

    @Test func theTextOfACorpusWithOneHostIsWhatTheDecodingReaderPrinted() async throws {
        let result = try await Self.report(["current.jsonl", "--baseline", "baseline.jsonl"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stdoutText == (try Self.golden("report.golden.txt")))
        #expect(
            result.stderrText.contains(
                "skipped 4 line(s) that are not reports: current.jsonl:12, current.jsonl:13, current.jsonl:57, baseline.jsonl:90"
            ))
    }
}
