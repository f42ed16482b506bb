import Foundation
import HTTPTypes
import Rebound

/// `JSONBackendErrorParser` on any body, as the answer to a 422 or a 429.
///
/// The input's first byte picks the status; the rest is the body.
///
/// Contract: no crash for any body; an error it makes keeps the response's status as its cause,
/// and the server's text it copies (the reason, the context's values, the captcha identifier) is
/// bounded, with no planted secret: the seeds and what the fuzzer grows from them put secrets in
/// every field (`UntrustedTextFuzzing.secrets`), which must not come out.
enum BackendErrorFuzzing {
    static let parser = JSONBackendErrorParser()

    static func violations(_ input: [UInt8]) -> [String] {
        guard let first = input.first else { return [] }
        let status: HTTPResponse.Status = first & 1 == 0 ? .unprocessableContent : .tooManyRequests
        let body = Data(input.dropFirst())
        guard let error = parser.backendError(from: HTTPResponse(status: status), body: body) else { return [] }
        var violations: [String] = []
        let chain = ErrorChain(error)
        if chain.root?.short != "HT\(status.code)" {
            violations.append("chain \(chain.short) does not end in the status")
        }
        var copied: [(String, String, Int)] = error.context.entries.map {
            ("context \($0.key)", $0.value.revealed, UntrustedText.identifierLimit)
        }
        if let reason = error.reason { copied.append(("reason", reason, UntrustedText.messageLimit)) }
        if let id = error.captchaChallenge?.id { copied.append(("captcha id", id, UntrustedText.identifierLimit)) }
        for (name, text, limit) in copied {
            if text.count > 3 * (limit + 1) {
                violations.append("\(name) of \(text.count) characters")
            }
            for secret in UntrustedTextFuzzing.secrets where text.contains(secret) && name != "captcha id" {
                violations.append("\(name) kept the secret \(secret.debugDescription): \(text.debugDescription)")
            }
        }
        return violations
    }
}
