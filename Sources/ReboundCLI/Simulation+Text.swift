import Rebound

extension Simulation {
    /// The width of a chart bar, in characters.
    static let chartWidth = 40

    /// The readable output: the policy and seed, a table of the waits, and a chart of their spread.
    ///
    /// ```
    /// backoff: base 0.2 s, multiplier 2, cap 10 s, full jitter; 4 attempts, 3 retries
    /// seed: 7 (pass --seed 7 to repeat these waits)
    ///
    /// waits in seconds before each retry
    /// sample  retry 0  retry 1  retry 2  total
    ///      1    0.137    0.301    0.655  1.093
    ///
    /// spread across 5 samples
    /// retry  allowed        |0 s                              0.655 s|  min    mean   max
    ///     0  0.000–0.200    |[--o-]                                  |  0.012  0.098  0.187
    /// ```
    func textLines(maxAttempts: Int) -> [String] {
        var lines = [
            "backoff: base \(backoff.base.secondsValue.compact) s, multiplier \(backoff.multiplier.compact), "
                + "cap \(backoff.cap.secondsValue.compact) s, \(backoff.jitter.rawValue) jitter; "
                + "\(maxAttempts) attempt\(maxAttempts == 1 ? "" : "s"), \(retries) retr\(retries == 1 ? "y" : "ies")",
            "seed: \(seed) (pass --seed \(seed) to repeat these waits)",
            "",
        ]
        guard retries > 0 else {
            lines.append("A single attempt never waits: raise --max-attempts to see retries.")
            return lines
        }
        lines.append("waits in seconds before each retry")
        var table = TextTable(Array(repeating: .right, count: retries + 2))
        table.append(["sample"] + (0..<retries).map { "retry \($0)" } + ["total"])
        for (index, waits) in samples.enumerated() {
            let total = waits.reduce(Duration.zero, +)
            table.append(["\(index + 1)"] + waits.map(seconds) + [seconds(total)])
        }
        lines += table.lines
        lines.append("")
        lines += chartLines()
        return lines
    }

    /// Per retry: the allowed range, a bar from the shortest to the longest wait with the mean
    /// marked, and the three numbers.
    private func chartLines() -> [String] {
        let scale = samples.joined().max() ?? .zero
        var table = TextTable([.right, .left, .left, .right, .right, .right])
        let axis = "0 s".padding(to: Self.chartWidth - seconds(scale).count - 2) + seconds(scale) + " s"
        table.append(["retry", "allowed", "|\(axis)|", "min", "mean", "max"])
        for k in 0..<retries {
            let waits = samples.map { $0[k] }
            let shortest = waits.min() ?? .zero
            let longest = waits.max() ?? .zero
            let mean = waits.reduce(Duration.zero, +) / waits.count
            let allowed = bounds(forRetry: k)
            table.append([
                "\(k)",
                "\(seconds(allowed.lowerBound))–\(seconds(allowed.upperBound))",
                "|" + bar(from: shortest, to: longest, mean: mean, scale: scale) + "|",
                seconds(shortest),
                seconds(mean),
                seconds(longest),
            ])
        }
        return ["spread across \(samples.count) sample\(samples.count == 1 ? "" : "s")"] + table.lines
    }

    /// `[--o---]` placed on a line of ``chartWidth`` characters where the right end is `scale`.
    private func bar(from shortest: Duration, to longest: Duration, mean: Duration, scale: Duration) -> String {
        func column(_ value: Duration) -> Int {
            guard scale > .zero else { return 0 }
            let fraction = value.secondsValue / scale.secondsValue
            return min(Self.chartWidth - 1, max(0, Int((fraction * Double(Self.chartWidth - 1)).rounded())))
        }
        var cells = Array(repeating: Character(" "), count: Self.chartWidth)
        let (low, high) = (column(shortest), column(longest))
        for index in low...high { cells[index] = "-" }
        cells[low] = "["
        cells[high] = "]"
        cells[column(mean)] = "o"
        return String(cells)
    }

    private func seconds(_ duration: Duration) -> String {
        duration.secondsValue.threeDecimals
    }
}

extension Double {
    /// `2` for 2.0, `1.5` for 1.5: a factor as a person writes it.
    fileprivate var compact: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

extension String {
    fileprivate func padding(to length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
