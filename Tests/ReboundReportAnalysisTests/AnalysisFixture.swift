import Foundation

@testable import Rebound

/// The reports the analysis and reader tests read.
enum AnalysisFixture {
    /// A whole second, so that reports survive the JSON round trip (milliseconds) unchanged.
    static let time = Date(timeIntervalSince1970: 1_740_000_000)
    static let build = BuildIdentity(version: "2.4.1", revision: "3f9c2ab")

    /// `LO43-PR<code>-NE2`: a distinct chain for every code, as a reporter would record it.
    static func chain(_ code: Int) -> ErrorChain {
        ErrorChain(links: [
            .init(domain: "LogicError", shortName: "LO", code: 43, codeName: "loginFailed"),
            .init(domain: "ProbeError", shortName: "PR", code: code, codeName: "probe\(code)"),
            .init(domain: "NetworkError", shortName: "NE", code: 2, codeName: "timeout"),
        ])
    }

    /// One occurrence of ``chain(_:)``.
    static func report(_ code: Int) -> NonFatalReport {
        NonFatalReport(
            kind: .occurrence,
            error: chain(code),
            file: "App/File.swift",
            line: 1,
            function: "f()",
            time: time,
            build: build,
            session: UUID(uuidString: "6F1C2A4E-0000-4000-8000-000000000001")!,
            occurrences: 1
        )
    }

    /// ``report(_:)`` as a JSON line, without its newline.
    static func line(_ code: Int) throws -> Data {
        try report(code).jsonLine()
    }

    /// A temporary directory, removed by the caller with `FileManager.default.removeItem`.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rebound-analysis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
