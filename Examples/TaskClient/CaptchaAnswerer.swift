import Foundation
import Rebound

/// Answers the backend's captcha: at a prompt when standard input is a terminal, otherwise from
/// `--captcha-answer`, otherwise by working out the arithmetic question automatically.
struct CaptchaAnswerer: CaptchaSolver {
    var fixedAnswer: String?

    func solve(_ challenge: CaptchaChallenge) async throws -> String {
        let question = challenge.question ?? "?"
        // The server's words: none of their control characters reaches the terminal.
        let shown = "\(challenge.id.escapingControlCharacters): \(question.escapingControlCharacters)"
        Console.write("      ? captcha \(shown)")
        if let fixedAnswer {
            Console.write("      ? answered from --captcha-answer: \(fixedAnswer)")
            return fixedAnswer
        }
        if isatty(STDIN_FILENO) == 1 {
            Console.prompt("      ? your answer: ")
            guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw CaptchaDismissed() }
            return line
        }
        guard let answer = Self.solveArithmetic(question) else { throw CaptchaDismissed() }
        Console.write("      ? solved automatically (no terminal): \(answer)")
        return answer
    }

    /// Solves "What is 3 + 4?"-style questions: the integers and the operator between them.
    static func solveArithmetic(_ question: String) -> String? {
        let tokens = question.split { !$0.isNumber && !"+-*×x".contains($0) }.map(String.init)
        guard tokens.count >= 3, let left = Int(tokens[tokens.count - 3]), let right = Int(tokens[tokens.count - 1])
        else {
            return nil
        }
        // A question whose answer does not fit an Int has none here (rather than a trap).
        let result: (partialValue: Int, overflow: Bool)
        switch tokens[tokens.count - 2] {
        case "+": result = left.addingReportingOverflow(right)
        case "-": result = left.subtractingReportingOverflow(right)
        case "*", "×", "x": result = left.multipliedReportingOverflow(by: right)
        default: return nil
        }
        return result.overflow ? nil : String(result.partialValue)
    }
}
