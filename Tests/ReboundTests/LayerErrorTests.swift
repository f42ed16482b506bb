import Foundation
import Testing

@testable import Rebound

private enum SampleCode: Int, ErrorCode {
    static let domain = "SampleError"
    static let shortName = "SA"
    case first = 7
    case second = 42
}

@Suite struct LayerErrorTests {
    @Test func aLayerErrorCarriesItsCodeCauseContextAndLocation() {
        let cause = NetworkError(.timeout)
        let line = #line + 1
        let error = LayerError(SampleCode.second, cause: cause, reason: "why", context: ["id": "3"])
        #expect(error.domain == "SampleError")
        #expect(error.shortName == "SA")
        #expect(error.codeValue == 42)
        #expect(error.codeName == "second")
        #expect((error.cause as? NetworkError)?.code == .timeout)
        #expect(error.location.fileID == "ReboundTests/LayerErrorTests.swift")
        #expect(error.location.line == line)
        #expect(error.description == "SampleError.second (why) [id: 3]")
    }

    @Test func sensitiveContextIsRedactedInTheDescription() {
        var context = ErrorContext()
        context["token"] = .sensitive("s3cr3t-token")
        context["user"] = "42"
        let error = LayerError(SampleCode.first, context: context)
        #expect(!error.description.contains("s3cr3t"))
        #expect(error.description.contains("token: <redacted>"))
        #expect(error.context["token"]?.revealed == "s3cr3t-token")
        #expect(context.redacted.map(\.key) == ["token", "user"])
    }

    @Test func aSensitiveValueIsRedactedInDumpsAndMirrorsToo() {
        let error = LayerError(
            SampleCode.first, cause: LayerError(SampleCode.second, context: ["cookie": .sensitive("inner-s3cr3t")]),
            context: ["token": .sensitive("s3cr3t-token"), "user": "42"])
        var dumped = ""
        dump(error, to: &dumped)
        var contextDump = ""
        dump(error.context, to: &contextDump)
        let mirrored = Mirror(reflecting: error.context["token"]!).children.map { "\($0.value)" }
        for text in [dumped, contextDump, mirrored.joined(separator: " ")] {
            #expect(!text.contains("s3cr3t"), "\(text)")
            #expect(text.contains(ErrorContext.Value.redactionMarker), "\(text)")
        }
        #expect(dumped.contains("42"))
    }

    @Test func settingAContextValueReplacesInPlaceAndNilRemoves() {
        var context: ErrorContext = ["a": "1", "b": "2"]
        context["a"] = "3"
        context["b"] = nil
        #expect(context.redacted.map { "\($0.key)=\($0.value)" } == ["a=3"])
    }

    @Test func aLongChainIsFreedWithoutOneStackFramePerLevel() async {
        // Freed recursively, 2,000 levels were enough to overflow a 512 KiB stack.
        let depth = await onThread(stackSize: 512 * 1024) {
            func chainDepth() -> Int {
                var error: any Error = NetworkError(.timeout)
                for _ in 0..<100_000 { error = LayerError(SampleCode.first, cause: error) }
                return error.causalChain.count
            }  // the chain is freed here, on the small stack
            return chainDepth()
        }
        #expect(depth == ErrorChain.maximumDepth)
    }

    @Test func freeingAChainLeavesTheCausesSomeoneElseHoldsWhole() {
        var keptError: (any Error)?
        var keptLayerError: LayerError<SampleCode>?
        do {
            var error: any Error = NetworkError(.timeout)
            for level in 1...10 {
                let wrapped = LayerError(SampleCode.first, cause: error)
                if level == 3 { keptLayerError = wrapped }
                error = wrapped
                if level == 6 { keptError = error }
            }
        }
        #expect(keptError?.causalChain.count == 7)
        #expect(keptError?.shortChain == "SA7-SA7-SA7-SA7-SA7-SA7-NE2")
        #expect(keptLayerError?.causalChain.count == 4)
        #expect((keptLayerError?.rootCause as? NetworkError)?.code == .timeout)
    }

    @Test func aDumpShowsTheCauseInItsPlace() {
        let error = LayerError(SampleCode.second, cause: NetworkError(.timeout), reason: "why")
        var dumped = ""
        dump(error, to: &dumped)
        #expect(dumped.contains("- cause: "), "\(dumped)")
        #expect(dumped.contains("timeout"), "\(dumped)")
        #expect(!dumped.contains("CauseBox"), "\(dumped)")
    }
}

/// Runs `work` on a thread of its own with a stack of `stackSize` bytes.
private func onThread<T: Sendable>(stackSize: Int, _ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.stackSize = stackSize
        thread.start()
    }
}
