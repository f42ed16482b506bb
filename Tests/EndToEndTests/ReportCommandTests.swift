import Foundation
import Testing

/// The built `rebound report`, run on report files written in the documented format.
@Suite(.timeLimit(.minutes(3)))
struct ReportCommandTests {
    static let sessions = (1...6).map { "00000000-0000-4000-8000-00000000000\($0)" }

    /// One report line, in the schema of `docs/reporting.md`.
    static func line(
        _ chain: String,
        kind: String = "occurrence",
        occurrences: Int = 1,
        session: Int,
        version: String = "2.4.1",
        day: Int = 2
    ) -> String {
        let object: [String: Any] = [
            "build": ["revision": "rev-\(version)", "version": version],
            "chain": chain,
            "context": [["isSensitive": false, "key": "screen", "value": "login"]],
            "error": ["isTruncated": false, "links": [] as [Any]],
            "file": "App/LoginModel.swift",
            "fullChain": "Full.\(chain)",
            "function": "login()",
            "kind": kind,
            "line": 42,
            "occurrences": occurrences,
            "sequence": 1,
            "session": sessions[session - 1],
            "time": "2025-03-0\(day)T09:30:12.345Z",
        ]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A directory with `current.jsonl` (ending in a torn line) and `baseline.jsonl`.
    static func files() throws -> (directory: URL, current: String, baseline: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rebound-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let current =
            [
                line("US14-LO43-AP7-NE2", session: 1),
                line("US14-LO43-AP7-NE2", kind: "repeats", occurrences: 19, session: 1),
                line("US14-LO43-AP7-NE2", session: 2),
                line("AP7-HT503", session: 2),
                line("AP7-HT503", session: 3),
                line("IN500-TA202-HT400", session: 3),
            ].joined(separator: "\n") + "\n" + #"{"build":{"revision""#
        let baseline =
            [
                line("US14-LO43-AP7-NE2", session: 4, version: "2.4.0", day: 1),
                line("AP7-HT503", session: 5, version: "2.3.0", day: 1),
                line("XX0", session: 6, version: "2.4.0", day: 1),
            ].joined(separator: "\n") + "\n"
        let currentPath = directory.appendingPathComponent("current.jsonl").path
        let baselinePath = directory.appendingPathComponent("baseline.jsonl").path
        try Data(current.utf8).write(to: URL(fileURLWithPath: currentPath))
        try Data(baseline.utf8).write(to: URL(fileURLWithPath: baselinePath))
        return (directory, currentPath, baselinePath)
    }

    @Test func theTextHasTheBarChartTheBuildsAndTheBaselineSections() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let result = try await ExecutableRunner.run("rebound", ["report", files.current, "--baseline", files.baseline])

        #expect(result.status == 0, "stderr: \(result.stderrText)")
        let text = result.stdoutText
        #expect(text.contains("24 occurrences of 3 chains in 3 sessions (6 reports)"))
        #expect(text.contains("Top chains by occurrences"))
        let top = try #require(
            text.split(separator: "\n").first { $0.contains("US14-LO43-AP7-NE2") && $0.contains("█") })
        #expect(top.contains(String(repeating: "█", count: 30)))
        #expect(top.hasSuffix("21 in 2 sessions"))
        #expect(text.contains("Full.US14-LO43-AP7-NE2"))
        #expect(text.contains("Top chains by sessions"))
        #expect(text.contains("By build"))
        #expect(text.contains("2.4.1 (rev-2.4.1)"))
        #expect(text.contains("New chains (not in the baseline)\n  IN500-TA202-HT400  1 in 1 session"))
        #expect(
            text.contains("Regressed chains (in the baseline, absent from 2.4.0 (rev-2.4.0), back now)\n  AP7-HT503"))
        #expect(text.contains("Growing chains"))
        // 21 occurrences in 3 sessions now (7 per session) against 1 in 3 before.
        #expect(text.contains("US14-LO43-AP7-NE2  0.33 → 7.00 per session (×21.00, 21 occurrences)"))
        // The torn last line is skipped and said so.
        #expect(result.stderrText.contains("skipped 1 line(s) that are not reports: \(files.current):7"))
    }

    @Test func jsonIsOneObjectWithTheInputAndTheAnalysis() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let result = try await ExecutableRunner.run(
            "rebound", ["report", "--json", "--top", "2", files.current, "--baseline", files.baseline])

        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stdoutText.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let input = try #require(object["input"] as? [String: Any])
        #expect(input["reports"] as? Int == 6)
        #expect(input["invalidLines"] as? [String] == ["\(files.current):7"])
        #expect(input["baselineReports"] as? Int == 3)
        let analysis = try #require(object["analysis"] as? [String: Any])
        let top = try #require(analysis["topByOccurrences"] as? [[String: Any]])
        #expect(top.map { $0["chain"] as? String } == ["US14-LO43-AP7-NE2", "AP7-HT503"])
        #expect(top.first?["occurrences"] as? Int == 21)
        #expect(top.first?["sessions"] as? Int == 2)
        let comparison = try #require(analysis["comparison"] as? [String: Any])
        #expect((comparison["newChains"] as? [[String: Any]])?.map { $0["chain"] as? String } == ["IN500-TA202-HT400"])
        #expect((comparison["regressedChains"] as? [[String: Any]])?.map { $0["chain"] as? String } == ["AP7-HT503"])
        #expect(
            (comparison["growingChains"] as? [[String: Any]])?.map { $0["chain"] as? String } == ["US14-LO43-AP7-NE2"])
    }

    @Test func countsTooLargeForIntAreSummedWithoutCrashingAndNegativeOnesAreSkipped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rebound-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ lines: [String]) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        // One line of Int.max, two that add up past it, a rate of 1e17 against a baseline of 1,
        // and a negative count, which no reporter writes.
        let maximum = try file("maximum.jsonl", [Self.line("AP7-HT503", occurrences: .max, session: 1)])
        let halves = try file(
            "halves.jsonl",
            [
                Self.line("AP7-HT503", occurrences: 4_611_686_018_427_387_904, session: 1),
                Self.line("AP7-HT503", kind: "repeats", occurrences: 4_611_686_018_427_387_904, session: 1),
            ])
        let baseline = try file("baseline.jsonl", [Self.line("AP7-HT503", session: 2, day: 1)])
        let growing = try file(
            "growing.jsonl", [Self.line("AP7-HT503", occurrences: 100_000_000_000_000_000, session: 1)])
        let negative = try file(
            "negative.jsonl",
            [Self.line("AP7-HT503", session: 1), Self.line("AP7-HT503", kind: "repeats", occurrences: -5, session: 1)])

        let text = try await ExecutableRunner.run("rebound", ["report", maximum])
        #expect(text.status == 0, "stderr: \(text.stderrText)")
        #expect(text.stdoutText.contains("9223372036854775807 occurrences of 1 chain in 1 session"))

        let json = try await ExecutableRunner.run("rebound", ["report", "--json", halves])
        #expect(json.status == 0, "stderr: \(json.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let totals = (object["analysis"] as? [String: Any])?["totals"] as? [String: Any]
        #expect(totals?["occurrences"] as? Int == .max)

        let rate = try await ExecutableRunner.run("rebound", ["report", growing, "--baseline", baseline])
        #expect(rate.status == 0, "stderr: \(rate.stderrText)")
        #expect(
            rate.stdoutText.contains("AP7-HT503  1.00 → 1e+17 per session (×1e+17, 100000000000000000 occurrences)"))

        let skipped = try await ExecutableRunner.run("rebound", ["report", negative])
        #expect(skipped.status == 0, "stderr: \(skipped.stderrText)")
        #expect(skipped.stdoutText.contains("1 occurrence of 1 chain in 1 session (1 report)"))
        #expect(skipped.stderrText.contains("skipped 1 line(s) that are not reports: \(negative):2"))
    }

    @Test func manyInvalidLinesAreCountedAndOnlyTheFirstHundredListed() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let path = files.directory.appendingPathComponent("noise.jsonl").path
        try Data(String(repeating: "x\n", count: 150).utf8).write(to: URL(fileURLWithPath: path))

        let json = try await ExecutableRunner.run("rebound", ["report", "--json", path, "--baseline", files.current])
        #expect(json.status == 0, "stderr: \(json.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let input = try #require(object["input"] as? [String: Any])
        #expect((input["invalidLines"] as? [String])?.count == 100)
        #expect((input["invalidLines"] as? [String])?.last == "\(path):100")
        #expect(input["invalidLineCount"] as? Int == 150)
        #expect(input["baselineInvalidLines"] as? [String] == ["\(files.current):7"])
        #expect(input["baselineInvalidLineCount"] as? Int == 1)
        #expect(json.stderrText.contains("skipped 151 line(s) that are not reports: \(path):1, "))

        let text = try await ExecutableRunner.run("rebound", ["report", path])
        #expect(text.status == 0, "stderr: \(text.stderrText)")
        #expect(text.stderrText.contains("skipped 150 line(s) that are not reports: \(path):1, "))
        #expect(text.stderrText.contains("\(path):10, …"))
    }

    @Test func anUnreadableFileExitsWith66AndSaysWhich() async throws {
        let missing = "/nonexistent/\(UUID().uuidString).jsonl"
        let result = try await ExecutableRunner.run("rebound", ["report", missing])
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.contains("error: cannot read \(missing): No such file or directory [RP5-PX2]"))
    }

    @Test func aPipeWithoutAWriterIsAnEmptyInputNotAHang() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rebound-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = directory.appendingPathComponent("reports.fifo").path
        try #require(mkfifo(pipe, 0o600) == 0)

        let result = try await ExecutableRunner.run("rebound", ["report", pipe], timeLimit: .seconds(20))
        #expect(!result.timedOut)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stdoutText.hasPrefix("0 occurrences of 0 chains in 0 sessions (0 reports)"))
    }

    @Test func processSubstitutionIsRead() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        // `<(cat file)` hands the tool /dev/fd/63, the read end of a pipe that cat writes.
        let result = try await ExecutableRunner.run(
            executableURL: URL(fileURLWithPath: "/bin/bash"),
            ["-c", #"exec "$0" report <(cat "$1")"#, try ExecutableRunner.executable("rebound").path, files.current],
            timeLimit: .seconds(20))
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stdoutText.contains("24 occurrences of 3 chains in 3 sessions (6 reports)"))
    }

    @Test func standardInputDirectoriesAndPatternsAreReadAndMerged() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let current = try Data(contentsOf: URL(fileURLWithPath: files.current))

        let stdin = try await ExecutableRunner.run("rebound", ["report", "--json", "-"], input: current)
        #expect(stdin.status == 0, "stderr: \(stdin.stderrText)")
        let fromStdin = try #require(try JSONSerialization.jsonObject(with: stdin.stdout) as? [String: Any])
        let stdinInput = try #require(fromStdin["input"] as? [String: Any])
        #expect(stdinInput["reports"] as? Int == 6)
        #expect(stdinInput["invalidLines"] as? [String] == ["-:7"])
        // Nothing was expanded, so the output has only the keys it always had.
        #expect(stdinInput["readFiles"] == nil)

        // The directory holds both files; a quoted pattern is expanded by the tool.
        let pattern = files.directory.path + "/c*.jsonl"
        let merged = try await ExecutableRunner.run(
            "rebound", ["report", "--json", files.directory.path, pattern], timeLimit: .seconds(30))
        #expect(merged.status == 0, "stderr: \(merged.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any])
        let input = try #require(object["input"] as? [String: Any])
        #expect(input["files"] as? [String] == [files.directory.path, pattern])
        #expect(input["readFiles"] as? [String] == [files.baseline, files.current, files.current])
        #expect(input["reports"] as? Int == 15)

        let empty = files.directory.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let noReports = try await ExecutableRunner.run("rebound", ["report", empty])
        #expect(noReports.status == 66)
        #expect(
            noReports.stderrText.contains(
                "error: cannot read \(empty): The directory holds no report files (*.jsonl). [RP5-PX2]"))
    }

    @Test func aProgressLineIsShownOnATerminalAndNeverOnAPipe() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let rebound = try ExecutableRunner.executable("rebound").path
        // script(1) runs the tool with a terminal as its stdin, stdout and stderr.
        let terminal = try await ExecutableRunner.run(
            executableURL: URL(fileURLWithPath: "/usr/bin/script"),
            ["-qec", "\(rebound) report --json \(files.current)", "/dev/null"], timeLimit: .seconds(30))
        #expect(terminal.status == 0, "output: \(terminal.stdoutText)")
        #expect(terminal.stdoutText.contains("reading 1 of 1 file: 0.0 of 0.0 MB (100%), 6 reports"))
        // Erased when reading ends, before the warning and the output.
        #expect(terminal.stdoutText.contains("6 reports\u{1B}[K\r\u{1B}[Kwarning: skipped 1 line(s)"))
        #expect(terminal.stdoutText.contains("{\"analysis\":"))

        let piped = try await ExecutableRunner.run("rebound", ["report", "--json", files.current])
        #expect(piped.status == 0)
        #expect(!piped.stderrText.contains("reading"))
        #expect(!piped.stdoutText.contains("reading"))
    }

    @Test func aFilesNameReachesTheTerminalWithoutItsControlCharacters() async throws {
        // In a fleet's directory a file's name is anyone's choice: an escape sequence in it would
        // clear the terminal or forge a line of the tool's output.
        let directory = try Self.files().directory
        defer { try? FileManager.default.removeItem(at: directory) }
        let named = directory.appendingPathComponent("x\u{1B}[2J.jsonl").path
        try Data("junk\n".utf8).write(to: URL(fileURLWithPath: named))
        let skipped = try await ExecutableRunner.run("rebound", ["report", directory.path])
        #expect(skipped.status == 0, "stderr: \(skipped.stderrText)")
        #expect(!skipped.stderrText.contains("\u{1B}"))
        #expect(skipped.stderrText.contains("x\\u{1B}[2J.jsonl:1"), "stderr: \(skipped.stderrText)")

        let dangling = directory.appendingPathComponent("y\u{1B}[2J.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "/nonexistent/rebound")
        let unreadable = try await ExecutableRunner.run("rebound", ["report", dangling])
        #expect(unreadable.status == 66)
        #expect(!unreadable.stderrText.contains("\u{1B}"))
    }

    @Test func invalidArgumentsExitWith64() async throws {
        let result = try await ExecutableRunner.run("rebound", ["report", "--top", "0", "a.jsonl"])
        #expect(result.status == 64)
        #expect(result.stderrText.contains("--top must be from 1 to 1000"))
    }
}
