import CommandLineWidth
import Testing

@testable import ReboundCLI

/// The tool's parsing and validation in process, as the fuzz target `cli-arguments` runs them.
@Suite struct ReboundCommandLineTests {
    @Test func validArgumentsNameACommandToRun() {
        #expect(ReboundCommandLine.end(of: ["fetch", "https://api.example.com/v1/tasks"], columns: nil) == nil)
        #expect(ReboundCommandLine.end(of: ["simulate", "--seed", "7"], columns: nil) == nil)
        #expect(ReboundCommandLine.end(of: ["report", "a.jsonl", "--baseline", "b.jsonl"], columns: nil) == nil)
        #expect(ReboundCommandLine.end(of: ["load", "--rate", "5", "http://127.0.0.1:1/"], columns: nil) == nil)
    }

    @Test func invalidArgumentsEndWith64AndAMessageThatShowsNoSecret() throws {
        let end = try #require(
            ReboundCommandLine.end(of: ["fetch", "http://u:SECRET@127.0.0.1:1/"], columns: nil))

        #expect(end.status == 64)
        #expect(end.message.contains("'http://***@127.0.0.1:1/' carries credentials"), "\(end.message)")
        #expect(!end.message.contains("SECRET"))
    }

    /// `COLUMNS=0`, a negative or a tiny `COLUMNS`, or a terminal that narrow, left ArgumentParser
    /// no room: a debug build stopped on an assertion, and `-9223372036854775808` overflowed.
    @Test(arguments: ["0", "-5", "1", "26", "-9223372036854775808"])
    func helpIsWholeHoweverNarrowCOLUMNSIs(columns: String) throws {
        let helps =
            [[], ["--help"], ["help", "fetch"]] + ["fetch", "simulate", "report", "load"].map { [$0, "--help"] }
        for arguments in helps {
            let end = try #require(ReboundCommandLine.end(of: arguments, columns: columns))
            #expect(end.status == 0)
            #expect(end.message.contains("OVERVIEW: "), "\(arguments): \(end.message)")
            #expect(end.message.contains("OPTIONS:"), "\(arguments): \(end.message)")
        }
        let error = try #require(ReboundCommandLine.end(of: ["simulate", "--samples", "0"], columns: columns))
        #expect(error.status == 64)
        #expect(error.message.contains("--samples must be from 1"), "\(error.message)")
    }

    @Test func theWidthIsCOLUMNSThenTheTerminalsThen80AndNeverTooNarrow() {
        #expect(MessageWidth.width(columns: "120", terminalColumns: 100) == 120)
        #expect(MessageWidth.width(columns: nil, terminalColumns: 100) == 100)
        #expect(MessageWidth.width(columns: "wide", terminalColumns: 100) == 100)
        #expect(MessageWidth.width(columns: nil, terminalColumns: nil) == 80)
        #expect(MessageWidth.width(columns: "0", terminalColumns: 100) == MessageWidth.narrowest)
        #expect(MessageWidth.width(columns: nil, terminalColumns: 12) == MessageWidth.narrowest)
        #expect(MessageWidth.width(columns: "9223372036854775807", terminalColumns: nil) == .max)
    }
}
