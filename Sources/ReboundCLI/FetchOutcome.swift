import HTTPTypes
import Rebound
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a `fetch` ended, and the two ways the tool reports it.
struct FetchOutcome {
    /// The response of a success, or the final error.
    var result: Result<TransportResponse, any Error>
    /// Every attempt, oldest first.
    var attempts: [FetchAttempt]
    /// From sending the first attempt to the outcome, waits included.
    var elapsed: Duration

    var exitCode: FetchExitCode {
        switch result {
        case .success: .success
        case .failure: FetchExitCode(failureWithLastAttempt: attempts.last)
        }
    }

    /// The final status: the successful one, or the last attempt's when it got a response.
    var status: Int? {
        switch result {
        case .success(let response): response.status.code
        case .failure: attempts.last?.status
        }
    }

    /// The report `--json` prints.
    func report(url: String) -> FetchReport {
        var failure: FetchReport.Failure?
        var bodyBytes = 0
        switch result {
        case .success(let response):
            bodyBytes = response.body.count
        case .failure(let error):
            let chain = ErrorChain(error)
            let presentation = ErrorPresenter.standard.present(error)
            failure = FetchReport.Failure(short: chain.short, full: chain.full, message: presentation.message)
        }
        return FetchReport(
            url: url,
            ok: failure == nil,
            status: status,
            attempts: attempts.map(FetchReport.Attempt.init),
            error: failure,
            bodyBytes: bodyBytes,
            elapsedSeconds: elapsed.secondsValue
        )
    }

    /// The body on stdout; the attempts, a summary and, on failure, what a person would be told
    /// on stderr.
    ///
    /// ```
    /// GET http://127.0.0.1:8080/flaky
    /// attempt  status  result  waited   retried by
    /// 1        503     HT503   0.000 s  BackendTemporaryErrorHandler
    /// 2        200     ok      0.137 s
    /// 200 after 2 attempts in 0.152 s
    /// ```
    func writeForPeople(method: HTTPRequest.Method, url: String) {
        StandardStreams.writeError("\(method.rawValue) \(url)")
        for line in attemptLog { StandardStreams.writeError(line) }
        let tally =
            "\(attempts.count) attempt\(attempts.count == 1 ? "" : "s") in \(elapsed.secondsValue.threeDecimals) s"
        switch result {
        case .success(let response):
            StandardStreams.writeError("\(Self.describe(response.status)) after \(tally)")
            StandardStreams.writeOutput(response.body)
        case .failure(let error):
            let chain = ErrorChain(error)
            let presenter = ErrorPresenter.standard
            StandardStreams.writeError("failed after \(tally): \(chain.short)")
            StandardStreams.writeError("")
            StandardStreams.writeError(presenter.text(of: presenter.present(error, includeTechnicalDetails: true)))
        }
    }

    /// One line per attempt, under a header line.
    var attemptLog: [String] {
        var table = TextTable([.right, .left, .left, .right, .left])
        table.append(["attempt", "status", "result", "waited", "retried by"])
        for attempt in attempts {
            table.append([
                "\(attempt.number)",
                attempt.status.map(String.init) ?? "-",
                attempt.error ?? "ok",
                "\(attempt.delayBefore.secondsValue.threeDecimals) s",
                attempt.handler ?? "",
            ])
        }
        return table.lines
    }

    private static func describe(_ status: HTTPResponse.Status) -> String {
        status.reasonPhrase.isEmpty ? "\(status.code)" : "\(status.code) \(status.reasonPhrase)"
    }
}
