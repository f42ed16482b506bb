import Foundation
import ReboundTesting
import Testing

@testable import Rebound

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ReportHostTests {
    /// The host of the first report a reporter configured with `host` sends.
    static func reportedHost(_ host: String?) async throws -> String? {
        let sink = RecordingReportSink()
        var configuration = ReportingFixture.configuration()
        configuration.host = host
        let reporter = ReportingFixture.reporter([sink], configuration: configuration)
        reporter.record(ReportingFixture.error(1))
        await reporter.shutdown()
        return try #require(sink.reports.first).host
    }

    @Test func everyReportNamesTheMachineByItsHostNameUnlessConfiguredOtherwise() async throws {
        var buffer = [CChar](repeating: 0, count: 256)
        try #require(gethostname(&buffer, 255) == 0)
        let hostName = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(NonFatalReporter.Configuration(build: ReportingFixture.build).host == hostName)
        #expect(NonFatalReporter.Configuration.localHost() == hostName)

        #expect(try await Self.reportedHost("api-7.eu-west") == "api-7.eu-west")
        #expect(try await Self.reportedHost(nil) == nil)

        // A repeat summary and a drops report name it too.
        let sink = RecordingReportSink()
        var configuration = ReportingFixture.configuration(maximumChainsPerSession: 1)
        configuration.host = "api-7.eu-west"
        let reporter = ReportingFixture.reporter([sink], configuration: configuration)
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(2))
        await reporter.shutdown()
        #expect(sink.reports.map(\.kind) == [.occurrence, .repeats, .drops])
        #expect(sink.reports.map(\.host) == ["api-7.eu-west", "api-7.eu-west", "api-7.eu-west"])
    }

    @Test func aHostIsScreenedForSecretsAndBoundedLikeOtherContext() async throws {
        // An ordinary long name stays whole: labels are screened one by one.
        let cloud = "ip-10-0-12-34.eu-west-1.compute.internal"
        #expect(try await Self.reportedHost(cloud) == cloud)
        // A label that looks like a token goes, and so does anything with an e-mail address.
        let token = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
        #expect(try await Self.reportedHost("\(token).fleet") == "<redacted>.fleet")
        #expect(try await Self.reportedHost("ops@example.com") == "<redacted>")
        // Control characters cannot forge a line or move a terminal's cursor.
        #expect(try await Self.reportedHost("web-1\n\u{1B}[2Jfake") == "web-1[2Jfake")
        // At most 253 characters, DNS's longest name.
        let long = try #require(try await Self.reportedHost(String(repeating: "abc.", count: 1000)))
        #expect(long.count == 253)
        #expect(long.hasSuffix("…"))
        #expect(try await Self.reportedHost("\u{7}") == nil)
    }

    @Test func aReportWithoutAHostAsFilesBeforeItHadOneDecodesWithNone() throws {
        var report = NonFatalReport(
            kind: .occurrence,
            error: ErrorChain(links: [.init(domain: "NetworkError", shortName: "NE", code: 2, codeName: "timeout")]),
            file: "App/File.swift",
            line: 1,
            function: "f()",
            time: ReportingFixture.time,
            build: ReportingFixture.build,
            session: ReportingFixture.session
        )
        let withoutHost = String(decoding: try report.jsonLine(), as: UTF8.self)
        #expect(!withoutHost.contains("\"host\""))
        #expect(try JSONDecoder().decode(NonFatalReport.self, from: Data(withoutHost.utf8)).host == nil)

        report.host = "api-7.eu-west"
        let withHost = try report.jsonLine()
        #expect(String(decoding: withHost, as: UTF8.self).contains(#""function":"f()","host":"api-7.eu-west","kind""#))
        #expect(try JSONDecoder().decode(NonFatalReport.self, from: withHost) == report)
    }
}
