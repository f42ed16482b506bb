import Foundation
import ReboundReportAnalysis
import Testing

@testable import Rebound

/// `JSONLinesReportReader.read(_:into:progress:)`: files, directories, patterns, bad input, and
/// agreement with the decoding reader on what is a report.
@Suite struct ReportTallyReadingTests {
    /// Writes `text` to `name` under `directory` (creating subdirectories) and returns its path.
    static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// `count` report lines of chain `LO43-PR<code>-NE2`, from `host`, one session each from
    /// `firstSession` on.
    static func lines(_ code: Int, count: Int = 1, host: String? = nil, firstSession: Int = 1) throws -> String {
        try (0..<count).map { index in
            var report = AnalysisFixture.report(code)
            report.host = host
            report.session = UUID(uuidString: String(format: "6F1C2A4E-0000-4000-8000-%012d", firstSession + index))!
            return String(decoding: try report.jsonLine(), as: UTF8.self) + "\n"
        }.joined()
    }

    static func read(_ arguments: [String], reader: JSONLinesReportReader = JSONLinesReportReader()) throws
        -> (ReportTally, JSONLinesReportReader.Summary)
    {
        var tally = ReportTally()
        let summary = try reader.read(arguments, into: &tally)
        return (tally, summary)
    }

    @Test func aLinkThatLeadsNowhereInADirectoryIsNoReportFileAndAnUnreadableDirectoryFailsTheRead() throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.write(try Self.lines(1), "fleet/a.jsonl", in: directory)
        let fleet = directory.appendingPathComponent("fleet").path
        // A dangling link, and a link to a directory, both named like report files: they made the
        // whole read fail (ENOENT, EISDIR).
        try FileManager.default.createSymbolicLink(atPath: fleet + "/gone.jsonl", withDestinationPath: "/nonexistent/x")
        try FileManager.default.createSymbolicLink(atPath: fleet + "/dir.jsonl", withDestinationPath: directory.path)
        let (_, summary) = try Self.read([fleet])
        #expect(summary.files == [fleet + "/a.jsonl"])
        #expect(summary.reports == 1)
        // A subdirectory that cannot be read was skipped without a word (root reads it anyway).
        guard getuid() != 0 else { return }
        _ = try Self.write(try Self.lines(2), "fleet/locked/b.jsonl", in: directory)
        let locked = fleet + "/locked"
        #expect(chmod(locked, 0) == 0)
        defer { chmod(locked, 0o755) }
        let error = try #require(throws: ReportingError.self) { try Self.read([fleet]) }
        #expect(error.context["path"]?.revealed == locked)
    }

    @Test func aFleetOfFilesIsReadOneOpenFileAtATime() throws {
        // Every file was opened before any was read: a directory of a fleet's thousands of files
        // passed the usual limit of 1,024 descriptors.
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = 300
        for index in 0..<files { _ = try Self.write(try Self.lines(1), "host-\(index).jsonl", in: directory) }
        func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        }
        let before = openDescriptors()
        var most = 0
        var tally = ReportTally()
        let summary = try JSONLinesReportReader().read([directory.path], into: &tally) { _ in
            most = max(most, openDescriptors())
        }
        #expect(summary.reports == files)
        // Other tests of the run open descriptors too: the margin is theirs.
        #expect(most - before < files / 2, "\(most) descriptors open while reading, \(before) before")
    }

    @Test func filesDirectoriesAndPatternsAreMergedInOrder() throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let single = try Self.write(try Self.lines(1, count: 2), "single.jsonl", in: directory)
        _ = try Self.write(try Self.lines(2), "fleet/b/web-2.jsonl", in: directory)
        _ = try Self.write(try Self.lines(2, count: 3, firstSession: 10), "fleet/a.jsonl", in: directory)
        // Not a report file by its name: a directory is read for its *.jsonl files only.
        _ = try Self.write("not reports\n", "fleet/notes.txt", in: directory)
        _ = try Self.write(try Self.lines(3), "old/1.jsonl", in: directory)
        _ = try Self.write(try Self.lines(3), "old/2.jsonl", in: directory)

        let (tally, summary) = try Self.read([
            single, directory.appendingPathComponent("fleet").path, directory.path + "/old/*.jsonl",
        ])
        #expect(
            summary.files == [
                single, directory.path + "/fleet/a.jsonl", directory.path + "/fleet/b/web-2.jsonl",
                directory.path + "/old/1.jsonl", directory.path + "/old/2.jsonl",
            ])
        #expect(summary.reports == 8)
        #expect(summary.invalidLineCount == 0)
        #expect(tally.reports == 8)
        let analysis = ReportAnalysis(tally: tally)
        #expect(analysis.topByOccurrences.map(\.chain) == ["LO43-PR2-NE2", "LO43-PR1-NE2", "LO43-PR3-NE2"])
        #expect(analysis.topByOccurrences.map(\.occurrences) == [4, 2, 2])
    }

    @Test func tornAndOverLongLinesAreCountedAndSkippedAndTheRestIsRead() throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = try Self.lines(1)
        let long = String(repeating: "x", count: 200_000)
        // A torn line, a line far over the limit, a report, an over-long last line without a newline.
        let path = try Self.write(
            String(report.prefix(40)) + "\n" + long + "\n" + report + report.dropLast() + long, "a.jsonl",
            in: directory)
        let reader = JSONLinesReportReader(maximumLineLength: 4096)
        let (tally, summary) = try Self.read([path], reader: reader)
        #expect(summary.reports == 1)
        #expect(tally.reports == 1)
        #expect(summary.invalidLines.map(\.line) == [1, 2, 4])
        #expect(summary.invalidLineCount == 3)
        #expect(summary.overlongLineCount == 2)
        #expect(summary.bytes == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))

        // The decoding reader counts the same lines with the same limit.
        let decoded = try reader.read(paths: [path])
        #expect(decoded.reports.count == 1)
        #expect(decoded.invalidLines.map(\.line) == [1, 2, 4])
    }

    @Test func binaryGarbageIsCountedAsInvalidLinesNotAnError() throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SystemRandomNumberGenerator()
        var garbage = (0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        garbage += Array(("\n" + (try Self.lines(1))).utf8)
        let path = directory.appendingPathComponent("garbage.jsonl").path
        try Data(garbage).write(to: URL(fileURLWithPath: path))

        let (tally, summary) = try Self.read([path])
        let newlines = garbage.count { $0 == UInt8(ascii: "\n") }
        #expect(tally.reports == 1)
        #expect(summary.reports == 1)
        // Every garbage line (the last one ends with the report's start, at a newline) is invalid,
        // save blank ones.
        #expect(summary.invalidLineCount > 0)
        #expect(summary.invalidLineCount <= newlines + 1)
    }

    @Test func badArgumentsAreTypedErrorsThatSayWhich() throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.write("x\n", "empty/notes.txt", in: directory)

        let missing = directory.path + "/missing.jsonl"
        let error = try #require(throws: ReportingError.self) { try Self.read([missing]) }
        #expect(error.chain.short == "RP5-PX2")
        #expect(error.context["path"]?.revealed == missing)

        let empty = directory.path + "/empty"
        let noReports = try #require(throws: ReportingError.self) { try Self.read([empty]) }
        #expect(noReports.chain.short == "RP5-PX2")
        #expect(noReports.reason == "The directory holds no report files (*.jsonl).")
        #expect(noReports.context["path"]?.revealed == empty)

        let pattern = directory.path + "/*.nothing"
        let noMatch = try #require(throws: ReportingError.self) { try Self.read([pattern]) }
        #expect(noMatch.reason == "No file matches the pattern.")
        #expect(noMatch.context["path"]?.revealed == pattern)

        // A missing file fails before anything is read, wherever it is in the list.
        let good = try Self.write(try Self.lines(1), "good.jsonl", in: directory)
        var tally = ReportTally()
        #expect(throws: ReportingError.self) { try JSONLinesReportReader().read([good, missing], into: &tally) }
        #expect(tally.reports == 0)
    }

    @Test func reportsAreGroupedByHostAndBuildWhenThereIsMoreThanOneHost() throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var other = AnalysisFixture.report(2)
        other.build = BuildIdentity(version: "2.5.0", revision: "9e8d7c6")
        other.host = "web-1"
        let text =
            try Self.lines(1, count: 3, host: "web-1") + Self.lines(1, host: "web-2", firstSession: 20)
            + Self.lines(2, host: nil, firstSession: 30)
            + String(decoding: try other.jsonLine(), as: UTF8.self) + "\n"
        let path = try Self.write(text, "fleet.jsonl", in: directory)

        let (tally, _) = try Self.read([path])
        let analysis = ReportAnalysis(tally: tally)
        let hosts = try #require(analysis.hosts)
        #expect(hosts.map(\.host) == ["web-1", nil, "web-2"])
        #expect(hosts.map(\.occurrences) == [4, 1, 1])
        #expect(hosts.map(\.chains) == [2, 1, 1])
        #expect(hosts[0].builds.map(\.build) == [AnalysisFixture.build, other.build])
        #expect(hosts[0].builds.map(\.occurrences) == [3, 1])
        #expect(analysis.topByOccurrences.map(\.hosts) == [2, 2])
        #expect(analysis.renderedText().contains("By host (and its builds)\n  web-1    "))
        #expect(analysis.renderedText().contains("  unknown  "))

        // One host, or none at all: nothing by host, as before reports had one.
        let (single, _) = try Self.read([
            try Self.write(try Self.lines(1, count: 2, host: "web-1"), "one.jsonl", in: directory)
        ])
        #expect(ReportAnalysis(tally: single).hosts == nil)
        #expect(ReportAnalysis(tally: single).topByOccurrences.first?.hosts == nil)
        #expect(!ReportAnalysis(tally: single).renderedText().contains("By host"))
    }

    /// Each line, checked by the scanner (through the tally) and by `JSONDecoder` (through
    /// `read(paths:)`): the same lines must be reports.
    static func expectBothReadersAgree(on lines: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try write(lines.joined(separator: "\n") + "\n", "lines.jsonl", in: directory)
        let decoded = try JSONLinesReportReader().read(paths: [path])
        let (tally, summary) = try read([path])
        #expect(summary.invalidLines.map(\.line) == decoded.invalidLines.map(\.line), sourceLocation: sourceLocation)
        #expect(summary.invalidLineCount == decoded.invalidLineCount, sourceLocation: sourceLocation)
        #expect(tally.reports == decoded.reports.count, sourceLocation: sourceLocation)
        #expect(
            ReportAnalysis(tally: tally) == ReportAnalysis(reports: decoded.reports), sourceLocation: sourceLocation)
    }

    @Test func everyCutOfAReportIsRejectedByBothReaders() throws {
        var report = AnalysisFixture.report(7)
        report.context = [.init(key: "screen", value: "tasks", isSensitive: false)]
        report.host = "web-1"
        let line = String(decoding: try report.jsonLine(), as: UTF8.self)
        try Self.expectBothReadersAgree(
            on: (1...line.utf8.count).map { String(decoding: line.utf8.prefix($0), as: UTF8.self) })
    }

    /// A line that is not JSON is not a report, even where what breaks it is in a key no reader
    /// looks at: bytes that are not UTF-8, a control character in a string. Foundation's decoder
    /// alone would take such a line (found by the report-reader fuzz target).
    @Test func aLineThatIsNotJSONIsRejectedByBothReadersWhereverItBreaks() throws {
        let line = try AnalysisFixture.line(1)
        func inserting(_ bytes: [UInt8], after text: String) -> Data {
            let range = line.range(of: Data(text.utf8))!
            return line[..<range.upperBound] + Data(bytes) + line[range.upperBound...]
        }
        let bad: [UInt8] = [0xE5, 0xE5]
        let variants = [
            inserting(Array(#""extra":"z"#.utf8) + bad + Array(#"","#.utf8), after: "{"),
            inserting(Array(#""extra":{""#.utf8) + bad + Array(#"":1},"#.utf8), after: "{"),
            inserting(bad, after: #""codeName":"time"#),
            inserting(Array(#""extra":"a"#.utf8) + [0x11] + Array(#"b","#.utf8), after: "{"),
            inserting(Array(#""extra":["a"#.utf8) + [0x09] + Array(#"b"],"#.utf8), after: "{"),
        ]
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.jsonl").path
        try variants.reduce(Data()) { $0 + $1 + Data("\n".utf8) }.write(to: URL(fileURLWithPath: path))
        let decoded = try JSONLinesReportReader().read(paths: [path])
        let (tally, summary) = try Self.read([path])
        #expect(decoded.reports.isEmpty)
        #expect(decoded.invalidLines.map(\.line) == [1, 2, 3, 4, 5])
        #expect(tally.reports == 0)
        #expect(summary.invalidLines.map(\.line) == [1, 2, 3, 4, 5])
    }

    @Test func linesThatAreAlmostReportsAreJudgedAsTheDecoderJudgesThem() throws {
        let line = String(decoding: try AnalysisFixture.line(1), as: UTF8.self)
        func replacing(_ old: String, _ new: String) -> String {
            line.replacingOccurrences(of: old, with: new)
        }
        let variants = [
            line,
            "  \(line)\r",
            line + " x",
            "[\(line)]",
            replacing(#""kind":"occurrence""#, #""kind":"other""#),
            replacing(#""kind":"occurrence""#, #""kind":"repeats""#),
            replacing(#""kind":"occurrence""#, #""kind":"occ\u0075rrence""#),
            replacing(#""chain":"#, #""chain":1,"x":"#),
            replacing(#""chain":"#, #""\u0063hain":"#),
            replacing(#""occurrences":1"#, #""occurrences":1.0"#),
            replacing(#""occurrences":1"#, #""occurrences":1e0"#),
            replacing(#""occurrences":1"#, #""occurrences":01"#),
            replacing(#""occurrences":1"#, #""occurrences":1.5"#),
            replacing(#""occurrences":1"#, #""occurrences":2E+1"#),
            replacing(#""occurrences":1"#, #""occurrences":1e300"#),
            replacing(#""occurrences":1"#, #""occurrences":9223372036854775807"#),
            replacing(#""occurrences":1"#, #""occurrences":9223372036854775808"#),
            replacing(#""occurrences":1"#, #""occurrences":-1"#),
            replacing(#""occurrences":1"#, #""occurrences":"1""#),
            replacing(#""line":1"#, #""line":null"#),
            replacing(#""function":"f()""#, #""function":null"#),
            replacing(#""sequence":1"#, #""sequence":null"#),
            replacing(#""sequence":1,"#, ""),
            replacing(#""context":[]"#, #""context":null"#),
            replacing(#""context":[]"#, #""context":[{"key":"a","value":"b","isSensitive":false}]"#),
            replacing(#""context":[]"#, #""context":[{"key":"a","value":"b"}]"#),
            replacing(#""context":[]"#, #""context":{}"#),
            // A key twice: the first one counts, as JSONDecoder takes it (found by the report-reader
            // fuzz target), and a key twice does not stand for a key missing.
            replacing(#""chain":"#, #""chain":"XX1-YY2","chain":"#),
            replacing(#""fullChain":"#, #""fullChain":"X.y - Y.z","fullChain":"#),
            replacing(#""kind":"occurrence""#, #""kind":"repeats","kind":"occurrence""#),
            replacing(#""time":"#, #""time":"2025-01-01T00:00:00.000Z","time":"#),
            replacing(#""session":"#, #""session":"00000000-0000-0000-0000-000000000001","session":"#),
            replacing(#""occurrences":1"#, #""occurrences":5,"occurrences":1"#),
            replacing(#""function":"f()""#, #""function":"f()","host":"web-1","host":"web-2""#),
            replacing(#""function":"f()""#, #""function":"f()","host":null,"host":"web-2""#),
            replacing(#""build":{"#, #""build":{"version":"9.9","#),
            replacing(#""build":{"#, #""build":{"version":"1","revision":"r"},"build":{"#),
            replacing(#""context":[]"#, #""context":[{"key":"a","value":"b","key":"c"}]"#),
            replacing(#""codeName":"timeout""#, #""codeName":"timeout","codeName":"timeout""#),
            replacing(#""code":"#, #""domain":"D","x":"#),
            replacing(
                #""codeName":"timeout""#,
                #""codeName":"timeout","nested":{"code":1,"codeName":"a","domain":"D","domain":"E"}"#),
            replacing(#""isTruncated":false"#, #""isTruncated":0"#),
            replacing(#""isTruncated":false,"#, ""),
            replacing(#""codeName":"timeout""#, #""codeName":null"#),
            replacing(#""codeName":"timeout""#, #""codeName":"time\u00f6ut\uD83D\uDE00""#),
            replacing(#""codeName":"timeout""#, #""codeName":"time\uD83Dout""#),
            replacing(#""codeName":"timeout""#, #""codeName":"time\qout""#),
            replacing(#""codeName":"timeout""#, "\"codeName\":\"tab\there\""),
            replacing(
                #""codeName":"timeout""#,
                #""codeName":"timeout","nested":{"code":1,"codeName":"a","domain":"D","shortName":"DD"}"#),
            replacing(#""codeName":"timeout""#, #""codeName":"timeout","nested":{"code":1}"#),
            replacing(#""codeName":"timeout""#, #""codeName":"timeout","extra":[1,{"a":[true,false,null,-0.5e+3]}]"#),
            replacing(#""codeName":"timeout""#, #""codeName":"timeout","extra":[1,]"#),
            replacing(#""codeName":"timeout""#, #""codeName":"timeout","extra":[,]"#),
            replacing(#""codeName":"timeout""#, #""codeName":"timeout","extra":{"a":1,}"#),
            replacing(#""codeName":"timeout""#, #""codeName":"time\uDE00out""#),
            replacing(#""time":"2025-02-19T21:20:00.000Z""#, #""time":"2025-02-19T21:20:00Z""#),
            replacing(#""time":"2025-02-19T21:20:00.000Z""#, #""time":"2025-02-19T21:20:00.5Z""#),
            replacing(#""time":"2025-02-19T21:20:00.000Z""#, #""time":"2025-02-30T21:20:00.000Z""#),
            replacing(#""time":"2025-02-19T21:20:00.000Z""#, #""time":"2025-13-19T21:20:00.000Z""#),
            replacing(#""time":"2025-02-19T21:20:00.000Z""#, #""time":"yesterday""#),
            replacing(#""session":"6F1C2A4E"#, #""session":"6f1c2a4e"#),
            replacing(#""session":"6F1C2A4E-"#, #""session":"6F1C2A4E"#),
            replacing(#""build":{"#, #""build":{"extra":1,"#),
            replacing(#""revision":"3f9c2ab","#, ""),
            replacing(#""file":"App/File.swift""#, #""file":"App\/File.swift""#),
            replacing(#""function":"f()""#, #""function":"f()","host":"web-1""#),
            replacing(#""function":"f()""#, #""function":"f()","host":null"#),
            replacing(#""function":"f()""#, #""function":"f()","host":7"#),
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            "{}",
            "null",
            "\u{FEFF}" + line,
        ]
        try Self.expectBothReadersAgree(on: variants)
    }
}
