/// A plain-text table with aligned columns, for the tool's readable output.
///
/// ```
/// attempt  status  result  waited   retried by
/// 1        503     HT503   0.000 s  BackendTemporaryErrorHandler
/// ```
struct TextTable {
    enum Alignment {
        case left
        case right
    }

    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ alignments: [Alignment]) {
        self.alignments = alignments
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The rows, columns two spaces apart, trailing spaces removed.
    var lines: [String] {
        let widths = alignments.indices.map { column in
            rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            let cells = alignments.indices.map { column -> String in
                let text = column < row.count ? row[column] : ""
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return alignments[column] == .left ? text + padding : padding + text
            }
            var line = cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

extension Double {
    /// The value with three decimals, such as `0.137`: milliseconds, enough for a person.
    ///
    /// Rounded to the nearest thousandth; past 10¹² a `Double` no longer holds every thousandth,
    /// and a larger value, or one that is not finite, is shown as Swift prints it.
    var threeDecimals: String {
        guard isFinite, magnitude < 1e12 else { return "\(self)" }
        let thousandths = Int((self * 1000).rounded())
        let fraction = String(thousandths.magnitude % 1000)
        let sign = thousandths < 0 ? "-" : ""
        return "\(sign)\(thousandths.magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
