import Testing

@testable import ReboundFuzz

/// Every committed seed of `Fuzz/Corpus` through its fuzz target, so that `swift test` checks
/// the targets' contracts on them without libFuzzer (`make fuzz` runs the fuzzers).
@Suite struct FuzzCorpusTests {
    /// The package's directory: this file is `Tests/ReboundFuzzTests/FuzzCorpusTests.swift` in it.
    static let packageRoot: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path
    }()

    @Test(arguments: FuzzTarget.allCases)
    func everySeedKeepsItsTargetsContract(_ target: FuzzTarget) {
        let files = FuzzCorpus.files(at: FuzzCorpus.directory(of: target, packageRoot: Self.packageRoot))
        #expect(files.count >= 3, "\(target.rawValue) has a seed corpus")
        for file in files {
            guard let input = FuzzCorpus.contents(of: file) else {
                Issue.record("\(file) cannot be read")
                continue
            }
            #expect(target.violations(input) == [], "\(file)")
        }
    }
}
