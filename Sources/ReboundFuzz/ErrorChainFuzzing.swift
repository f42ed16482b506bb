import Foundation
import Rebound

/// `ErrorChain` decoded from any JSON, as a report file another program wrote carries it.
///
/// Contract: no crash; a chain that decodes shows no sensitive value (each is the redaction
/// marker however the JSON spelled it), renders both ways, and encodes to JSON that decodes to
/// the same chain.
enum ErrorChainFuzzing {
    static func violations(_ input: [UInt8]) -> [String] {
        guard let chain = try? JSONDecoder().decode(ErrorChain.self, from: Data(input)) else { return [] }
        var violations: [String] = []
        for link in chain.links {
            for entry in link.context where entry.isSensitive && entry.value != ErrorContext.Value.redactionMarker {
                violations.append("sensitive \(entry.key.debugDescription) shows \(entry.value.debugDescription)")
            }
        }
        _ = (chain.short, chain.full, chain.description)
        do {
            let again = try JSONDecoder().decode(ErrorChain.self, from: JSONEncoder().encode(chain))
            if again != chain { violations.append("encoding and decoding changed the chain") }
        } catch {
            violations.append("the encoded chain does not decode: \(error)")
        }
        return violations
    }
}
