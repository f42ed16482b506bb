import Foundation
import ReboundReportAnalysis
import TestSupport
import Testing

@testable import Rebound

@Suite struct JSONLinesReportSinkTests {
    @Test func eachReportIsOneLineThatTheReaderReadsBack() async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path
        let reporter = ReportingFixture.reporter([try JSONLinesReportSink(path: path)])
        reporter.record(talkExample(), context: ["screen": "login"])
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.split(separator: UInt8(ascii: "\n")).count == 3)
        let contents = try JSONLinesReportReader().read(paths: [path])
        #expect(contents.invalidLines.isEmpty)
        #expect(contents.reports.map(\.chain) == ["US14-LO43-AP7-NE2", "LO43-PR1-NE2", "LO43-PR1-NE2"])
        #expect(contents.reports.map(\.kind) == [.occurrence, .occurrence, .repeats])
        #expect(contents.reports.first?.error == talkExample().chain)
    }

    @Test(arguments: [false, true])
    func writtenBeforeReturnEachReportIsInTheFileWhenRecordReturns(fsyncEachReport: Bool) async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path
        let reporter = ReportingFixture.reporter(
            [try JSONLinesReportSink(path: path, fsyncEachReport: fsyncEachReport)],
            configuration: ReportingFixture.configuration(delivery: .writtenBeforeReturn))
        for code in 1...3 {
            reporter.record(ReportingFixture.error(code))
            let contents = try JSONLinesReportReader().read(paths: [path])
            #expect(contents.invalidLines.isEmpty)
            #expect(contents.reports.map(\.chain).last == "LO43-PR\(code)-NE2")
            #expect(contents.reports.count == code)
        }
        #expect(reporter.statistics.sinkFailures == 0)
    }

    @Test func aDeviceThatCannotBeSyncedIsWrittenAndFlushedWithoutAnError() async throws {
        // fsync(2) of /dev/null fails with EINVAL: there is nothing to sync, which is no failure.
        let sink = try JSONLinesReportSink(path: "/dev/null", fsyncEachReport: true)
        let reporter = ReportingFixture.reporter(
            [sink], configuration: ReportingFixture.configuration(delivery: .writtenBeforeReturn))
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()
        #expect(reporter.statistics.sent == 1)
        #expect(reporter.statistics.sinkFailures == 0)
        try await sink.flush()
    }

    @Test func aTornLineIsSealedOnOpenSkippedByTheReaderAndTheFileStaysWellFormed() async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path

        // A process appended one report, then died in the middle of the second.
        let whole = try ReportSinkTests.report(chain: ReportingFixture.error(1).chain).jsonLine()
        let torn = try ReportSinkTests.report(chain: ReportingFixture.error(2).chain).jsonLine().prefix(40)
        try (whole + Data("\n".utf8) + torn).write(to: URL(fileURLWithPath: path))

        let sink = try JSONLinesReportSink(path: path)
        #expect(sink.sealedTornLine)
        try await sink.receive(ReportSinkTests.report(chain: ReportingFixture.error(3).chain))

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.last == UInt8(ascii: "\n"))
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.count == 4)  // whole, torn, new, and the empty string after the last newline
        #expect(lines[1] == torn)

        let contents = try JSONLinesReportReader().read(paths: [path])
        #expect(contents.reports.map(\.chain) == ["LO43-PR1-NE2", "LO43-PR3-NE2"])
        #expect(contents.invalidLines == [.init(path: path, line: 2)])

        // Opening a well-formed file seals nothing.
        #expect(try JSONLinesReportSink(path: path).sealedTornLine == false)
    }

    @Test func aReportAfterAWriteThatLeftATornLineStartsALineOfItsOwn() async {
        // A file size limit (RLIMIT_FSIZE) makes the kernel write only the part of a report that
        // fits, and refuse the newline after it, as a disk that fills up does. The limit is the
        // whole process's, so the test runs in a child process of its own (an exit test): lowering
        // it here would make file writes of tests running in parallel fail.
        await #expect(processExitsWith: .success) {
            // Past the limit the kernel sends SIGXFSZ, which ends the process unless ignored;
            // ignored, the write fails with EFBIG instead.
            signal(SIGXFSZ, SIG_IGN)
            let directory = try ReportingFixture.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("reports.jsonl").path
            let sink = try JSONLinesReportSink(path: path)
            try await sink.receive(ReportSinkTests.report(chain: ReportingFixture.error(1).chain))

            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            var limit = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
            var lowered = limit
            lowered.rlim_cur = rlim_t(size + 50)
            try #require(setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &lowered) == 0)
            let torn = await #expect(throws: ReportingError.self) {
                try await sink.receive(ReportSinkTests.report(chain: ReportingFixture.error(2).chain))
            }
            try #require(setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0)
            #expect(torn?.reason?.hasPrefix("Wrote 50 of ") == true)

            try await sink.receive(ReportSinkTests.report(chain: ReportingFixture.error(3).chain))
            let contents = try JSONLinesReportReader().read(paths: [path])
            #expect(contents.reports.map(\.chain) == ["LO43-PR1-NE2", "LO43-PR3-NE2"])
            #expect(contents.invalidLines.map(\.line) == [2])
            if contents.reports.count != 2 { exit(EXIT_FAILURE) }
        }
    }

    /// A report file may be write-only (mode 0200: the app writes, only a collector reads). The
    /// sink cannot read the last byte, so it cannot tell whether the last line is torn: it seals it
    /// as if it were, with a newline in front of its first report, in the same write. A whole last
    /// line gains an empty line after it, which readers skip; a torn one is ended.
    @Test func aWriteOnlyFileIsSealedWithoutBeingRead() async {
        // Root reads any file, so the check runs as a user without that power: in a child process
        // of its own (an exit test), since a process cannot get it back.
        await #expect(processExitsWith: .success) {
            let directory = try ReportingFixture.temporaryDirectory()
            // Run at the end, as the directory's new owner.
            defer { try? FileManager.default.removeItem(at: directory) }
            let whole = try ReportSinkTests.report(chain: ReportingFixture.error(1).chain).jsonLine()
            let torn = try ReportSinkTests.report(chain: ReportingFixture.error(2).chain).jsonLine().prefix(40)
            let ended = directory.appendingPathComponent("ended.jsonl").path
            let tornPath = directory.appendingPathComponent("torn.jsonl").path
            try (whole + Data("\n".utf8)).write(to: URL(fileURLWithPath: ended))
            try (whole + Data("\n".utf8) + torn).write(to: URL(fileURLWithPath: tornPath))
            try becomeAWriteOnlyUser(of: [ended, tornPath], in: directory.path)
            // The premise: this process cannot read the files.
            guard open(ended, O_RDONLY) < 0, errno == EACCES else { exit(EXIT_FAILURE) }

            for path in [ended, tornPath] {
                let sink = try JSONLinesReportSink(path: path)
                #expect(!sink.sealedTornLine)
                try await sink.receive(ReportSinkTests.report(chain: ReportingFixture.error(3).chain))
                try await sink.receive(ReportSinkTests.report(chain: ReportingFixture.error(4).chain))
            }

            for path in [ended, tornPath] { chmod(path, 0o600) }
            let endedBytes = try Data(contentsOf: URL(fileURLWithPath: ended))
            #expect(endedBytes.prefix(whole.count + 2) == whole + Data("\n\n".utf8))
            let endedContents = try JSONLinesReportReader().read(paths: [ended])
            #expect(endedContents.reports.map(\.chain) == ["LO43-PR1-NE2", "LO43-PR3-NE2", "LO43-PR4-NE2"])
            #expect(endedContents.invalidLines.isEmpty)
            let tornContents = try JSONLinesReportReader().read(paths: [tornPath])
            #expect(tornContents.reports.map(\.chain) == ["LO43-PR1-NE2", "LO43-PR3-NE2", "LO43-PR4-NE2"])
            #expect(tornContents.invalidLines.map(\.line) == [2])
            if endedContents.reports.count != 3 || tornContents.reports.count != 3 { exit(EXIT_FAILURE) }
        }
    }

    @Test func concurrentWritersNeverInterleaveLines() async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path
        // Two sinks on the same file stand for two processes: each has its own descriptor.
        let sinks = [try JSONLinesReportSink(path: path), try JSONLinesReportSink(path: path)]
        await withTaskGroup(of: Void.self) { group in
            for (index, sink) in sinks.enumerated() {
                group.addTask {
                    for code in 0..<100 {
                        let report = ReportSinkTests.report(chain: ReportingFixture.error(index * 1_000 + code).chain)
                        try? await sink.receive(report)
                    }
                }
            }
        }
        let contents = try JSONLinesReportReader().read(paths: [path])
        #expect(contents.invalidLines.isEmpty)
        #expect(contents.reports.count == 200)
    }

    @Test func theFileStopsAtItsMaximumSizeAndCountsTheDrops() async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path
        let report = ReportSinkTests.report(chain: ReportingFixture.error(1).chain)
        let lineSize = try report.jsonLine().count + 1
        let sink = try JSONLinesReportSink(path: path, maximumFileSize: lineSize * 2 + lineSize / 2)
        try await sink.receive(report)
        try await sink.receive(report)
        await #expect(throws: ReportingError.self) { try await sink.receive(report) }
        #expect(sink.droppedForSize == 1)

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? Int) == lineSize * 2)
        #expect(try JSONLinesReportReader().read(paths: [path]).reports.count == 2)
    }

    @Test func aPipeThatNobodyReadsIsAnErrorNotAHang() async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.fifo").path
        try #require(mkfifo(path, 0o600) == 0)

        // Opening a pipe for writing waits for a reader unless the writer asks not to.
        let (opened, hung) = await withoutHanging(on: path, freeingWith: O_RDONLY) {
            Result { () throws(ReportingError) in _ = try JSONLinesReportSink(path: path) }
        }
        #expect(!hung, "Opening a pipe that nobody reads hangs.")
        let error = try #require(throws: ReportingError.self) { try opened?.get() }
        #expect(error.code == .cannotOpenFile)
        #expect(error.chain.short == "RP2-PX6")  // ENXIO: no process has the pipe open for reading
    }

    @Test func anUnopenableFileIsAnError() throws {
        let error = try #require(throws: ReportingError.self) {
            try JSONLinesReportSink(path: "/nonexistent/\(UUID().uuidString)/reports.jsonl")
        }
        #expect(error.code == .cannotOpenFile)
        #expect(error.chain.short == "RP2-PX2")
    }
}

/// Makes `files` write-only (mode 0200) for this process: as root, which reads any file anyway, the
/// process becomes the unprivileged user `nobody` (65534), owner of `directory` and `files`.
/// Only for exit tests: the process cannot become root again.
private func becomeAWriteOnlyUser(of files: [String], in directory: String) throws {
    struct Refused: Error { var step: String }
    for file in files where chmod(file, 0o200) != 0 { throw Refused(step: "chmod") }
    guard geteuid() == 0 else { return }
    let nobody: uid_t = 65_534
    for path in [directory] + files where chown(path, nobody, gid_t(nobody)) != 0 { throw Refused(step: "chown") }
    guard setgroups(0, nil) == 0, setgid(gid_t(nobody)) == 0, setuid(nobody) == 0 else {
        throw Refused(step: "setuid")
    }
}
