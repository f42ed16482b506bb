import Foundation
import Rebound

/// Answers the backend's captcha: at a prompt when standard input is a terminal, otherwise from
/// `--captcha-answer`, otherwise by working out the arithmetic question automatically.
struct CaptchaAnswerer: CaptchaSolver {
    var fixedAnswer: String?

    func solve(_ challenge: CaptchaChallenge) async throws -> String {
        let question = challenge.question ?? "?"
        Console.write("      ? captcha \(challenge.id): \(question)")
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
        switch tokens[tokens.count - 2] {
        case "+": return String(left + right)
        case "-": return String(left - right)
        case "*", "×", "x": return String(left * right)
        default: return nil
        }
    }
}
