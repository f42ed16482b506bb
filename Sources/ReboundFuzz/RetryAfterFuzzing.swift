import Foundation
import Rebound

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `RetryAfter.parse` on any field value, and on dates written from the input's bytes.
///
/// Contract: a value is `nil` or a wait between zero and `RetryAfter.longestDelay`; digits alone
/// (spaces, tabs, CRs and LFs around them) are that many seconds, clamped; an IMF-fixdate or an
/// asctime date of any second from 1970 to 9999 is read back as its distance from `now`,
/// clamped.
enum RetryAfterFuzzing {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func violations(_ input: [UInt8]) -> [String] {
        var violations: [String] = []
        let text = String(decoding: input, as: UTF8.self)
        let wait = RetryAfter.parse(text, now: now)
        if let wait, wait < .zero || wait > RetryAfter.longestDelay {
            violations.append("\(text.debugDescription): wait \(wait) outside 0...\(RetryAfter.longestDelay)")
        }
        if let seconds = delaySeconds(input), wait != seconds {
            violations.append("\(text.debugDescription): \(String(describing: wait)) for \(seconds)")
        }
        violations += dateRoundTrips(input)
        return violations
    }

    /// The wait that digits alone ask for, clamped; `nil` when the input is not digits alone.
    static func delaySeconds(_ input: [UInt8]) -> Duration? {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = input.firstIndex(where: { !isSpace($0) }),
            let last = input.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let digits = input[first...last]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let significant = digits.drop { $0 == 0x30 }
        let longest = RetryAfter.longestDelay.components.seconds
        guard significant.count <= 18 else { return RetryAfter.longestDelay }
        let value = significant.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        return .seconds(min(value, longest))
    }

    /// The last second of 9999, the latest a four-digit year can write.
    static let latest: Int64 = 253_402_300_799

    /// A second from the input's first 8 bytes, written as an IMF-fixdate and as an asctime
    /// date, parsed back against a `now` from the next 8.
    static func dateRoundTrips(_ input: [UInt8]) -> [String] {
        guard input.count >= 16 else { return [] }
        let second = (Int64(truncatingIfNeeded: word(input[0..<8])) & .max) % (latest + 1)
        let nowSecond = (Int64(truncatingIfNeeded: word(input[8..<16])) & .max) % (latest + 1)
        let now = Date(timeIntervalSince1970: Double(nowSecond))
        let expected: Duration =
            second <= nowSecond ? .zero : min(.seconds(second - nowSecond), RetryAfter.longestDelay)
        var violations: [String] = []
        for date in [imfFixdate(second), asctime(second)] {
            let wait = RetryAfter.parse(date, now: now)
            if wait != expected {
                violations.append("\(date) at \(nowSecond): \(String(describing: wait)), expected \(expected)")
            }
        }
        return violations
    }

    static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func imfFixdate(_ second: Int64) -> String {
        let t = utc(second)
        return "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }

    /// `Sun Nov  6 08:49:37 1994`.
    static func asctime(_ second: Int64) -> String {
        let t = utc(second)
        let day = t.tm_mday < 10 ? " \(t.tm_mday)" : "\(t.tm_mday)"
        return "\(days[Int(t.tm_wday)]) \(months[Int(t.tm_mon)]) \(day) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) \(t.tm_year + 1900)"
    }

    static func utc(_ second: Int64) -> tm {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        return parts
    }

    static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
