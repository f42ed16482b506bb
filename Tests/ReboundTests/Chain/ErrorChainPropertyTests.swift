import Foundation
import PropertyBased
import Testing

@testable import Rebound

/// Property tests over generated chains: any chain renders, encodes and decodes consistently, and
/// wrapping never loses a link.
@Suite struct ErrorChainPropertyTests {
    /// One generated link: which layer and code, whether it has a nested code, and a secret in its context.
    struct LinkSeed: Sendable, CustomStringConvertible {
        var raw: Int

        var layer: Int { raw % 4 }
        var codeIndex: Int { (raw / 4) % 16 }
        var hasNested: Bool { (raw / 64) % 3 == 0 }
        var secret: String { "secret-\(raw)-\(raw &* 2_654_435_761 % 1_000_003)" }
        var description: String { "\(raw)" }

        /// Wraps `cause` in the error this seed describes, and returns it with its expected short link.
        func wrap(_ cause: (any Error)?) -> (any Error, String) {
            var context: ErrorContext = ["seed": "\(raw)"]
            context["token"] = .sensitive(secret)
            let nested =
                hasNested
                ? NestedCode(ValidationErrorCode.allCases[codeIndex % ValidationErrorCode.allCases.count]) : nil
            switch layer {
            case 0:
                let code = UserErrorCode.allCases[codeIndex % UserErrorCode.allCases.count]
                return (UserError(code, nested: nested, cause: cause, context: context), "US\(code.rawValue)")
            case 1:
                let code = LogicErrorCode.allCases[codeIndex % LogicErrorCode.allCases.count]
                return (LogicError(code, nested: nested, cause: cause, context: context), "LO\(code.rawValue)")
            case 2:
                let code = APIErrorCode.allCases[codeIndex % APIErrorCode.allCases.count]
                return (APIError(code, nested: nested, cause: cause, context: context), "AP\(code.rawValue)")
            default:
                let code = NetworkErrorCode.allCases[codeIndex % NetworkErrorCode.allCases.count]
                return (NetworkError(code, nested: nested, cause: cause, context: context), "NE\(code.rawValue)")
            }
        }
    }

    static let seeds = Gen.int(in: 0...1_000_000).map { LinkSeed(raw: $0) }.array(of: 1...12)

    /// Builds the chain from the innermost seed outwards, optionally over a foreign root cause.
    static func build(_ seeds: [LinkSeed], foreignRoot: Bool) -> (error: any Error, expectedShort: [String]) {
        var error: (any Error)? = foreignRoot ? POSIXError(.ETIMEDOUT) : nil
        var shorts: [String] = foreignRoot ? ["PX\(POSIXErrorCode.ETIMEDOUT.rawValue)"] : []
        for seed in seeds.reversed() {
            let (wrapped, short) = seed.wrap(error)
            error = wrapped
            shorts.insert(short, at: 0)
        }
        return (error!, shorts)
    }

    @Test func wrappingNeverLosesALink() async {
        await propertyCheck(input: Self.seeds, Gen.bool) { seeds, foreignRoot in
            let (error, expected) = Self.build(seeds, foreignRoot: foreignRoot)
            let chain = error.chain
            #expect(chain.links.count == expected.count)
            #expect(chain.links.map(\.short) == expected)
            #expect(chain.short == expected.joined(separator: "-"))
            #expect(error.causalChain.count == expected.count)
        }
    }

    @Test func anyChainRendersTheSameEveryTimeAndFromItsLinks() async {
        await propertyCheck(input: Self.seeds) { seeds in
            let first = Self.build(seeds, foreignRoot: false).error.chain
            let second = Self.build(seeds, foreignRoot: false).error.chain
            #expect(first.short == second.short)
            #expect(first.full == second.full)
            #expect(first.full.components(separatedBy: " - ") == first.links.map(\.full))
            for (link, seed) in zip(first.links, seeds) {
                #expect(link.full.contains("(ValidationError.") == seed.hasNested)
            }
        }
    }

    @Test func anyChainDecodesBackFromJSONUnchanged() async throws {
        await propertyCheck(input: Self.seeds, Gen.bool) { seeds, foreignRoot in
            let chain = Self.build(seeds, foreignRoot: foreignRoot).error.chain
            let data = try JSONEncoder().encode(chain)
            let decoded = try JSONDecoder().decode(ErrorChain.self, from: data)
            #expect(decoded == chain)
            #expect(decoded.short == chain.short)
            #expect(decoded.full == chain.full)
        }
    }

    @Test func noSensitiveValueSurvivesIntoAnyRendering() async throws {
        await propertyCheck(input: Self.seeds) { seeds in
            let error = Self.build(seeds, foreignRoot: false).error
            let chain = error.chain
            let renderings = [
                chain.short, chain.full, chain.debugDescription,
                String(decoding: try JSONEncoder().encode(chain), as: UTF8.self),
                error.localizedDescription,
            ]
            for seed in seeds {
                for rendering in renderings { #expect(!rendering.contains(seed.secret)) }
            }
        }
    }
}
