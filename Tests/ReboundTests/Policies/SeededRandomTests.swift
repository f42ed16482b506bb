import Rebound
import Testing

/// The generator must produce the reference xoshiro256** sequence, so seeded waits are the same everywhere.
@Suite struct SeededRandomTests {
    /// Outputs of the reference C code (SplitMix64 filling xoshiro256**'s state, from prng.di.unimi.it).
    @Test(arguments: [
        (
            UInt64(0),
            [0x99EC_5F36_CB75_F2B4, 0xBF6E_1F78_4956_452A, 0x1A5F_849D_4933_E6E0, 0x6AA5_94F1_262D_2D2C] as [UInt64]
        ),
        (UInt64(42), [0x1578_0B2E_0C2E_C716, 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1, 0xECB8_AD47_03B3_60A1]),
    ])
    func aSeedGivesTheReferenceSequence(seed: UInt64, expected: [UInt64]) {
        var generator = SeededRandom(seed: seed)
        let outputs = expected.indices.map { _ in generator.next() }
        #expect(outputs == expected)
    }

    @Test func aCopyContinuesWithTheSameSequence() {
        var original = SeededRandom(seed: 7)
        _ = original.next()
        var copy = original
        #expect((0..<16).map { _ in original.next() } == (0..<16).map { _ in copy.next() })
    }

    @Test func neighbouringSeedsGiveUnrelatedSequences() {
        var first = SeededRandom(seed: 1)
        var second = SeededRandom(seed: 2)
        let firstOutputs = (0..<8).map { _ in first.next() }
        let secondOutputs = (0..<8).map { _ in second.next() }
        #expect(Set(firstOutputs).isDisjoint(with: secondOutputs))
    }

    @Test func bitsAreRoughlyBalanced() {
        var generator = SeededRandom(seed: 0)
        let ones = (0..<1_000).reduce(0) { count, _ in count + generator.next().nonzeroBitCount }
        // 64,000 fair bits: the mean is 32,000 and the standard deviation about 126.
        #expect((31_000...33_000).contains(ones))
    }
}
