import PropertyBased
import Testing

@testable import Rebound

/// The durations behind ``HedgingPolicy/Delay/observedP90(window:initial:)``.
@Suite struct EndpointLatenciesTests {
    @Test func thereIsNoP90BeforeTenDurations() {
        let latencies = EndpointLatencies()
        for milliseconds in 1...9 { latencies.record(.milliseconds(milliseconds), for: "GET /tasks", window: 100) }
        #expect(latencies.p90(of: "GET /tasks") == nil)
        latencies.record(.milliseconds(10), for: "GET /tasks", window: 100)
        #expect(latencies.p90(of: "GET /tasks") == .milliseconds(9))
        #expect(latencies.p90(of: "GET /other") == nil)
    }

    @Test func theP90IsTheNearestRankOfTheLastWindowOfDurations() async {
        await propertyCheck(input: Gen.int(in: 1...1_000).array(of: 1...300), Gen.int(in: 1...200)) {
            milliseconds, window in
            let latencies = EndpointLatencies()
            for value in milliseconds { latencies.record(.milliseconds(value), for: "GET /t", window: window) }
            let kept = milliseconds.suffix(EndpointLatencies.clamp(window)).sorted()
            guard kept.count >= EndpointLatencies.minimumSamples else {
                #expect(latencies.p90(of: "GET /t") == nil)
                return
            }
            let p90 = try #require(latencies.p90(of: "GET /t"))
            // At least 90 % of the window at or below it, and it is one of the window's durations.
            #expect(kept.contains { .milliseconds($0) == p90 })
            #expect(Double(kept.count { .milliseconds($0) <= p90 }) >= 0.9 * Double(kept.count))
            #expect(Double(kept.count { .milliseconds($0) < p90 }) < 0.9 * Double(kept.count))
        }
    }

    @Test func aSmallerWindowKeepsTheNewestDurations() {
        let latencies = EndpointLatencies()
        for value in 1...25 { latencies.record(.seconds(value), for: "GET /t", window: 20) }
        // The ring has wrapped; with a window of 10, the ten newest (16…25 s) are kept.
        latencies.record(.seconds(26), for: "GET /t", window: 10)
        #expect(latencies.p90(of: "GET /t") == .seconds(25))
        // Nine more replace 17…25 s: 26 s is the slowest of ten, above the 90th percentile.
        for _ in 1...9 { latencies.record(.milliseconds(1), for: "GET /t", window: 10) }
        #expect(latencies.p90(of: "GET /t") == .milliseconds(1))
    }

    @Test func atMost256EndpointsAreMeasured() {
        let latencies = EndpointLatencies()
        for endpoint in 0...EndpointLatencies.maxEndpoints {
            for _ in 1...10 { latencies.record(.milliseconds(5), for: "GET /\(endpoint)", window: 10) }
        }
        #expect(latencies.p90(of: "GET /0") == .milliseconds(5))
        #expect(latencies.p90(of: "GET /\(EndpointLatencies.maxEndpoints - 1)") == .milliseconds(5))
        #expect(latencies.p90(of: "GET /\(EndpointLatencies.maxEndpoints)") == nil)
    }
}
