// The cost of `@Resilient` when nothing fails: a 10,000-element array of a small model decoded
// with and without the wrapper, in interleaved rounds, release mode.
//
//     swift run -c release decoding-benchmark [--elements 10000] [--rounds 9] [--repetitions 5]
//
// Each round times the plain model, the wrapped model (every property `@Resilient`) and the
// wrapped model through `ResilientDecoding.decode` (with a collector and the digest); the order of
// the variants rotates from round to round, so drift in the machine's speed affects all of them.
// A round's time for a variant is the fastest of its repetitions, measured in CPU time of the
// decoding thread: on a shared machine, wall-clock time mostly measures the other processes. The
// result is the median over the rounds of the ratio wrapped/plain.

import Foundation
import Rebound

enum ChoreStatus: String, Codable, ResilientRawRepresentable {
    case open, done, blocked, unknown

    static var decodingFallback: ChoreStatus? { .unknown }
}

/// Six fields: Int, String, Double, [String], an enum, an optional.
struct PlainChore: Decodable {
    var id: Int
    var title: String
    var reward: Double
    var tags: [String]
    var status: ChoreStatus
    var note: String?
}

/// The same fields, every one resilient (scalars become optionals: the wrapper recovers them with `nil`).
struct ResilientChore: Decodable {
    @Resilient var id: Int?
    @Resilient var title: String?
    @Resilient var reward: Double?
    @Resilient var tags: [String]
    @Resilient var status: ChoreStatus
    @Resilient var note: String?
}

struct Options {
    var elements = 10_000
    var rounds = 9
    var repetitions = 5

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next().flatMap { Int($0) }
            switch (argument, value) {
            case ("--elements", let value?): elements = value
            case ("--rounds", let value?): rounds = value
            case ("--repetitions", let value?): repetitions = value
            default:
                FileHandle.standardError.write(Data("unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// A JSON array of `count` chores; every third has no note, every fifth a null one.
func payload(count: Int, malformedEvery: Int? = nil) -> Data {
    let statuses = ["open", "done", "blocked"]
    var parts: [String] = []
    parts.reserveCapacity(count)
    for index in 0..<count {
        var fields = [
            #""id":\#(index)"#,
            #""title":"Label picture \#(index)""#,
            #""reward":\#(Double(index % 100) / 4)"#,
            #""tags":["image","label","batch-\#(index % 7)"]"#,
            #""status":"\#(statuses[index % 3])""#,
        ]
        if index % 5 == 0 {
            fields.append(#""note":null"#)
        } else if index % 3 != 0 {
            fields.append(#""note":"check the corners""#)
        }
        if let malformedEvery, index % malformedEvery == 0 { fields[2] = #""reward":"lots""# }
        parts.append("{" + fields.joined(separator: ",") + "}")
    }
    return Data(("[" + parts.joined(separator: ",") + "]").utf8)
}

/// The CPU time the current thread has used.
func threadCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// The fastest of `repetitions` runs of `body`, and a checksum so the work is not optimized away.
func fastest(_ repetitions: Int, _ body: () throws -> Int) rethrows -> (Duration, Int) {
    var best = Duration.seconds(1_000)
    var checksum = 0
    for _ in 0..<repetitions {
        let start = threadCPUTime()
        let result = try body()
        best = min(best, threadCPUTime() - start)
        checksum &+= result
    }
    return (best, checksum)
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count.isMultiple(of: 2)
        ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
}

let options = Options(arguments: CommandLine.arguments)
let data = payload(count: options.elements)
let decoder = JSONDecoder()

func decodePlain() throws -> Int {
    let chores = try decoder.decode([PlainChore].self, from: data)
    return chores.count &+ chores[chores.count / 2].id
}

func decodeWrapped() throws -> Int {
    let chores = try decoder.decode([ResilientChore].self, from: data)
    return chores.count &+ (chores[chores.count / 2].id ?? 0)
}

func decodeWithDigest() throws -> Int {
    let (chores, digest) = try ResilientDecoding.decode([ResilientChore].self, from: data, decoder: decoder)
    return chores.count &+ (chores[chores.count / 2].id ?? 0) &+ digest.entries.count
}

// The two models must agree, and the digest must work in this (release) build.
let plain = try decoder.decode([PlainChore].self, from: data)
let wrapped = try decoder.decode([ResilientChore].self, from: data)
precondition(plain.count == wrapped.count && plain.map(\.note) == wrapped.map(\.note))
precondition(plain.map(\.tags) == wrapped.map(\.tags) && plain.map(\.id) == wrapped.map(\.id))
let (_, malformedDigest) = try ResilientDecoding.decode(
    [ResilientChore].self, from: payload(count: 100, malformedEvery: 10), decoder: decoder)
precondition(malformedDigest.errors.count == 10, "the digest must work in release builds")

print("DecodingBenchmark: \(options.elements) elements (\(data.count) bytes), \(options.rounds) rounds,")
print("fastest of \(options.repetitions) repetitions per variant and round")
print("")
print("round   plain ms   wrapped ms   ratio   with digest ms   ratio")
var ratios: [Double] = []
var digestRatios: [Double] = []
var checksum = 0
let variants: [() throws -> Int] = [decodePlain, decodeWrapped, decodeWithDigest]
for round in 1...options.rounds {
    var times: [Duration] = Array(repeating: .zero, count: variants.count)
    for offset in 0..<variants.count {
        let variant = (round + offset) % variants.count
        let (best, sum) = try fastest(options.repetitions, variants[variant])
        times[variant] = best
        checksum &+= sum
    }
    let (plainTime, wrappedTime, digestTime) = (times[0], times[1], times[2])
    let ratio = milliseconds(wrappedTime) / milliseconds(plainTime)
    let digestRatio = milliseconds(digestTime) / milliseconds(plainTime)
    ratios.append(ratio)
    digestRatios.append(digestRatio)
    print(
        String(
            format: "%5d   %8.2f   %10.2f   %5.3f   %14.2f   %5.3f",
            round, milliseconds(plainTime), milliseconds(wrappedTime), ratio, milliseconds(digestTime), digestRatio
        )
    )
}
print("")
print(String(format: "median ratio wrapped/plain:             %.3f", median(ratios)))
print(String(format: "median ratio wrapped with digest/plain: %.3f", median(digestRatios)))
print("(checksum \(checksum))")
