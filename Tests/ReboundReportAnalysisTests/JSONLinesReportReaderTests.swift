import Foundation
import ReboundReportAnalysis
import TestSupport
import Testing

@testable import Rebound

@Suite struct JSONLinesReportReaderTests {
    @Test func theReaderSkipsLinesThatAreNotReportsAndFailsOnlyOnUnreadableFiles() throws {
        let good = try AnalysisFixture.line(1)
        let data = good + Data("\n\nnot json\n{\"kind\":\"occurrence\"}\n".utf8) + good
        let contents = JSONLinesReportReader().read(data, path: "a.jsonl")
        #expect(contents.reports.count == 2)
        #expect(contents.invalidLines.map(\.line) == [3, 4])

        let missing = "/nonexistent/\(UUID().uuidString).jsonl"
        let error = try #require(throws: ReportingError.self) { try JSONLinesReportReader().read(paths: [missing]) }
        #expect(error.code == .cannotReadFile)
        #expect(error.context["path"]?.revealed == missing)
        #expect(error.chain.short == "RP5-PX2")
        #expect(error.reason == "No such file or directory")
    }

    @Test func aReportStandingForFewerOccurrencesThanItsKindCanIsAnInvalidLine() throws {
        func line(_ kind: NonFatalReport.Kind, _ occurrences: Int) throws -> Data {
            var report = AnalysisFixture.report(1)
            report.kind = kind
            report.occurrences = occurrences
            return try report.jsonLine() + Data("\n".utf8)
        }
        // A drops report of sink failures alone stands for 0 occurrences; nothing stands for fewer,
        // and an occurrence or a repeat summary stands for at least one.
        let data =
            try line(.occurrence, 1) + line(.repeats, 5) + line(.drops, 0)
            + line(.occurrence, 0) + line(.repeats, -5) + line(.drops, -1) + line(.occurrence, .min)
        let contents = JSONLinesReportReader().read(data, path: "a.jsonl")
        #expect(contents.reports.map(\.occurrences) == [1, 5, 0])
        #expect(contents.invalidLines.map(\.line) == [4, 5, 6, 7])
    }

    @Test func onlyTheFirstHundredInvalidLinesAreListedButAllAreCounted() throws {
        // A file of tiny lines must not cost memory per line: 250 one-byte invalid lines, each
        // followed by an empty one, then a report.
        let good = try AnalysisFixture.line(1)
        let data = Data(String(repeating: "x\n\n", count: 250).utf8) + good
        let contents = JSONLinesReportReader().read(data, path: "a.jsonl")
        #expect(contents.reports.count == 1)
        #expect(contents.invalidLines.count == JSONLinesReportReader.maximumListedInvalidLines)
        #expect(contents.invalidLines.map(\.line) == Array(stride(from: 1, through: 199, by: 2)))
        #expect(contents.invalidLineCount == 250)

        // Over several files the list stops at the same length and the count goes on.
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try ["a.jsonl", "b.jsonl"].map { name in
            let path = directory.appendingPathComponent(name).path
            try Data(String(repeating: "x\n", count: 80).utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let both = try JSONLinesReportReader().read(paths: paths)
        #expect(both.invalidLines.count { $0.path == paths[0] } == 80)
        #expect(both.invalidLines.count { $0.path == paths[1] } == 20)
        #expect(both.invalidLineCount == 160)
    }

    @Test func aDirectoryOrAFileOverTheLimitIsNotRead() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let error = try #require(throws: ReportingError.self) { try JSONLinesReportReader().read(paths: [directory]) }
        #expect(error.chain.short == "RP5-PX21")

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).jsonl").path
        let line = try AnalysisFixture.line(1)
        try (line + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try JSONLinesReportReader(maximumFileSize: line.count + 1).read(paths: [path]).reports.count == 1)
        let tooLarge = try #require(throws: ReportingError.self) {
            try JSONLinesReportReader(maximumFileSize: line.count).read(paths: [path])
        }
        #expect(tooLarge.code == .cannotReadFile)
        #expect(tooLarge.context["maximumFileSize"]?.revealed == "\(line.count)")
    }

    @Test func aPipeWithoutAWriterReadsAsEmptyAndAnEndlessDeviceStopsAtTheLimit() async throws {
        let directory = try AnalysisFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.fifo").path
        try #require(mkfifo(path, 0o600) == 0)

        // Opening a pipe for reading waits for a writer unless the reader asks not to.
        let (count, hung) = await withoutHanging(on: path, freeingWith: O_WRONLY) {
            Result { () throws(ReportingError) in try JSONLinesReportReader().read(paths: [path]) }.map(\.reports.count)
        }
        #expect(!hung, "Reading a pipe without a writer hangs.")
        #expect(try count?.get() == 0)

        // A character device is read like a pipe: /dev/null is empty, and /dev/zero, which has
        // no end, stops at the size limit.
        #expect(try JSONLinesReportReader().read(paths: ["/dev/null"]).reports.isEmpty)
        let device = try #require(throws: ReportingError.self) {
            try JSONLinesReportReader(maximumFileSize: 1024 * 1024).read(paths: ["/dev/zero"])
        }
        #expect(device.code == .cannotReadFile)
        #expect(device.context["path"]?.revealed == "/dev/zero")
        #expect(device.context["maximumFileSize"]?.revealed == "\(1024 * 1024)")
    }
}
