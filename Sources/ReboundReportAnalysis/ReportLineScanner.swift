import Rebound

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A string inside a line: where its content is, and whether it holds escapes.
struct ScannedString {
    /// The content's bytes, between the quotes, as offsets into the line.
    var range: Range<Int>
    /// Whether the content holds a `\` escape, so that its bytes are not yet its text.
    var hasEscapes: Bool
}

/// The fields of one report line that the analysis reads, as the scanner found them.
struct ScannedReport {
    var kind: NonFatalReport.Kind = .occurrence
    var chain = ScannedString(range: 0..<0, hasEscapes: false)
    var fullChain = ScannedString(range: 0..<0, hasEscapes: false)
    var time = Date(timeIntervalSince1970: 0)
    var version = ScannedString(range: 0..<0, hasEscapes: false)
    var revision = ScannedString(range: 0..<0, hasEscapes: false)
    var session = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var occurrences = 0
    var host: ScannedString?
}

/// Reads one line of a report file: checks that it is a report, as `NonFatalReport`'s decoder
/// would accept it, and picks out the fields the analysis needs, without building the report.
///
/// A line is a report when it is one JSON object (whitespace around it allowed) of valid UTF-8
/// with every key a report requires, each of the right type: `kind` one of the three kinds,
/// `chain`, `fullChain` and `file` strings, `line` an integer, `time` an ISO 8601 date, `build`
/// an object with `version` and `revision`, `session` a UUID, `occurrences` an integer of at least
/// 1 (0 for `drops`), `error` an object with `isTruncated` and `links`, each link with its
/// `domain`, `shortName`, `code`, `codeName` and `context`, and every context entry with `key`,
/// `value` and `isSensitive`. Optional keys (`context`, `function`, `sequence`, `host`, a link's
/// `nested`, `reason`, `file`, `line`) may be missing or `null`; other keys are skipped, their
/// values checked only as JSON. Integers are numbers whose value is whole and fits an `Int`.
/// Like Foundation's decoder, it takes a comma before a closing bracket or brace and a byte order
/// mark before the object, and of a key given twice it keeps the first value (the second must
/// still be of the right type).
///
/// It reads each byte once, and allocates nothing for a report whose strings need no escapes.
struct ReportLineScanner {
    /// The deepest nesting of arrays and objects a line may have, as Foundation's JSON decoder
    /// allows: deeper is not a report, and recursion stays bounded.
    static let maximumDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// Whether any string held a byte outside ASCII, so that the line's UTF-8 must be checked.
    private var sawNonASCII = false

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The report fields of `line`, or `nil` if it is not a report.
    static func scan(_ line: UnsafeRawBufferPointer) -> ScannedReport? {
        var scanner = ReportLineScanner(line)
        guard let report = scanner.report() else { return nil }
        if scanner.sawNonASCII {
            guard String(validating: line, as: UTF8.self) != nil else { return nil }
        }
        return report
    }

    /// The text of a string the scanner found in `line`, its escapes resolved; `nil` for an
    /// escape that makes no character (a lone surrogate).
    static func text(of string: ScannedString, in line: UnsafeRawBufferPointer) -> String? {
        let content = UnsafeRawBufferPointer(rebasing: line[string.range])
        guard string.hasEscapes else { return String(decoding: content, as: UTF8.self) }
        return unescaped(content)
    }

    // MARK: - The report

    private mutating func report() -> ScannedReport? {
        // A byte order mark before the object, which Foundation's decoder skips.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        var report = ScannedReport()
        var found = RequiredKeys()
        // A key given twice: the first value counts, as Foundation's decoder takes it.
        var hostFound = false
        let parsed = object(depth: 1) { scanner, key in
            switch scanner.keyName(key) {
            case "kind":
                guard let value = scanner.string(), let kind = scanner.kind(value) else { return false }
                if !found.contains(.kind) { report.kind = kind }
                found.insert(.kind)
            case "chain":
                guard let value = scanner.string() else { return false }
                if !found.contains(.chain) { report.chain = value }
                found.insert(.chain)
            case "fullChain":
                guard let value = scanner.string() else { return false }
                if !found.contains(.fullChain) { report.fullChain = value }
                found.insert(.fullChain)
            case "error":
                guard scanner.errorChain() else { return false }
                found.insert(.error)
            case "context":
                guard scanner.null() || scanner.contextEntries(depth: 2) else { return false }
            case "file":
                guard scanner.string() != nil else { return false }
                found.insert(.file)
            case "line":
                guard scanner.integer() != nil else { return false }
                found.insert(.line)
            case "function":
                guard scanner.null() || scanner.string() != nil else { return false }
            case "time":
                guard let value = scanner.string(), let time = scanner.time(value) else { return false }
                if !found.contains(.time) { report.time = time }
                found.insert(.time)
            case "build":
                guard let (version, revision) = scanner.build() else { return false }
                if !found.contains(.build) { (report.version, report.revision) = (version, revision) }
                found.insert(.build)
            case "session":
                guard let value = scanner.string(), let session = scanner.uuid(value) else { return false }
                if !found.contains(.session) { report.session = session }
                found.insert(.session)
            case "occurrences":
                guard let value = scanner.integer() else { return false }
                if !found.contains(.occurrences) { report.occurrences = value }
                found.insert(.occurrences)
            case "sequence":
                guard scanner.null() || scanner.integer() != nil else { return false }
            case "host":
                var host: ScannedString?
                if !scanner.null() {
                    guard let value = scanner.string() else { return false }
                    host = value
                }
                if !hostFound { report.host = host }
                hostFound = true
            default:
                return scanner.skipValue(depth: 2)
            }
            return true
        }
        guard parsed, found == .all else { return nil }
        skipWhitespace()
        guard position == bytes.count else { return nil }
        // No reporter writes fewer; in a file, fewer is damage, and would subtract from the sums.
        guard report.occurrences >= (report.kind == .drops ? 0 : 1) else { return nil }
        return report
    }

    /// The keys without which a line is not a report: a set of bits, which costs no allocation.
    private struct RequiredKeys: OptionSet {
        let rawValue: UInt16
        static let kind = Self(rawValue: 1 << 0)
        static let chain = Self(rawValue: 1 << 1)
        static let fullChain = Self(rawValue: 1 << 2)
        static let error = Self(rawValue: 1 << 3)
        static let file = Self(rawValue: 1 << 4)
        static let line = Self(rawValue: 1 << 5)
        static let time = Self(rawValue: 1 << 6)
        static let build = Self(rawValue: 1 << 7)
        static let session = Self(rawValue: 1 << 8)
        static let occurrences = Self(rawValue: 1 << 9)
        static let all = Self(rawValue: (1 << 10) - 1)
    }

    private func kind(_ value: ScannedString) -> NonFatalReport.Kind? {
        switch keyName(value) {
        case "occurrence": .occurrence
        case "repeats": .repeats
        case "drops": .drops
        default: nil
        }
    }

    /// A `BuildIdentity`: its version and revision, the first of each.
    private mutating func build() -> (version: ScannedString, revision: ScannedString)? {
        var version: ScannedString?
        var revision: ScannedString?
        let parsed = object(depth: 2) { scanner, key in
            switch scanner.keyName(key) {
            case "version":
                guard let value = scanner.string() else { return false }
                version = version ?? value
                return true
            case "revision":
                guard let value = scanner.string() else { return false }
                revision = revision ?? value
                return true
            default:
                return scanner.skipValue(depth: 3)
            }
        }
        guard parsed, let version, let revision else { return nil }
        return (version, revision)
    }

    /// An `ErrorChain`: `links` and `isTruncated`.
    private mutating func errorChain() -> Bool {
        var links = false
        var truncated = false
        let parsed = object(depth: 2) { scanner, key in
            switch scanner.keyName(key) {
            case "links":
                links = scanner.array(depth: 3) { scanner in scanner.link(depth: 4) }
                return links
            case "isTruncated":
                truncated = scanner.bool()
                return truncated
            default:
                return scanner.skipValue(depth: 3)
            }
        }
        return parsed && links && truncated
    }

    /// An `ErrorChain.Link`.
    private mutating func link(depth: Int) -> Bool {
        // One bit per required key, so that a key twice does not stand for another one missing.
        var found: UInt8 = 0
        let parsed = object(depth: depth) { scanner, key in
            if let read = scanner.codeMember(key, found: &found) { return read }
            switch scanner.keyName(key) {
            case "context":
                found |= 1 << 4
                return scanner.contextEntries(depth: depth + 1)
            case "nested":
                return scanner.null() || scanner.nestedCode(depth: depth + 1)
            case "reason", "file":
                return scanner.null() || scanner.string() != nil
            case "line":
                return scanner.null() || scanner.integer() != nil
            default:
                return scanner.skipValue(depth: depth + 1)
            }
        }
        return parsed && found == 0b11111
    }

    /// A `NestedCode`.
    private mutating func nestedCode(depth: Int) -> Bool {
        var found: UInt8 = 0
        let parsed = object(depth: depth) { scanner, key in
            scanner.codeMember(key, found: &found) ?? scanner.skipValue(depth: depth + 1)
        }
        return parsed && found == 0b1111
    }

    /// Reads the value of a key that links and nested codes share, setting its bit in `found`
    /// (`domain` 1, `shortName` 2, `codeName` 4, `code` 8); `nil`, reading nothing, for another key.
    private mutating func codeMember(_ key: ScannedString, found: inout UInt8) -> Bool? {
        switch keyName(key) {
        case "domain": found |= 1 << 0
        case "shortName": found |= 1 << 1
        case "codeName": found |= 1 << 2
        case "code":
            found |= 1 << 3
            return integer() != nil
        default: return nil
        }
        return string() != nil
    }

    /// An array of `ErrorChain.Link.ContextEntry`.
    private mutating func contextEntries(depth: Int) -> Bool {
        array(depth: depth) { scanner in
            var found: UInt8 = 0
            let parsed = scanner.object(depth: depth + 1) { scanner, key in
                switch scanner.keyName(key) {
                case "key":
                    found |= 1 << 0
                    return scanner.string() != nil
                case "value":
                    found |= 1 << 1
                    return scanner.string() != nil
                case "isSensitive":
                    found |= 1 << 2
                    return scanner.bool()
                default:
                    return scanner.skipValue(depth: depth + 2)
                }
            }
            return parsed && found == 0b111
        }
    }

    // MARK: - JSON

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Consumes `byte` after any whitespace, if it is next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        position += 1
        return true
    }

    /// An object, whose members `member` reads: it is given the key, and consumes the value.
    private mutating func object(depth: Int, _ member: (inout Self, ScannedString) -> Bool) -> Bool {
        guard depth <= Self.maximumDepth, consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard let key = string(), consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            // Foundation's parser takes a comma before the closing brace; so does this one.
            if consume(UInt8(ascii: ",")) {
                if consume(UInt8(ascii: "}")) { return true }
                continue
            }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// An array, whose elements `element` reads.
    private mutating func array(depth: Int, _ element: (inout Self) -> Bool) -> Bool {
        guard depth <= Self.maximumDepth, consume(UInt8(ascii: "[")) else { return false }
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            skipWhitespace()
            guard element(&self) else { return false }
            // Foundation's parser takes a comma before the closing bracket; so does this one.
            if consume(UInt8(ascii: ",")) {
                if consume(UInt8(ascii: "]")) { return true }
                continue
            }
            return consume(UInt8(ascii: "]"))
        }
    }

    /// Any value, checked as JSON and otherwise ignored.
    private mutating func skipValue(depth: Int) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"):
            return object(depth: depth) { scanner, _ in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            return array(depth: depth) { scanner in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return bool()
        case UInt8(ascii: "n"):
            return null()
        default:
            return number()
        }
    }

    /// A string: its content's range, once its escapes are checked.
    private mutating func string() -> ScannedString? {
        guard current == UInt8(ascii: "\"") else { return nil }
        position += 1
        let start = position
        var hasEscapes = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return ScannedString(range: start..<(position - 1), hasEscapes: hasEscapes)
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                guard position + 1 < bytes.count else { return nil }
                switch bytes[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    guard let code = hexEscape(at: position) else { return nil }
                    position += 6
                    // A surrogate is half a character: a high one must be followed by a low one.
                    if (0xDC00..<0xE000).contains(code) { return nil }
                    if (0xD800..<0xDC00).contains(code) {
                        guard let low = hexEscape(at: position), (0xDC00..<0xE000).contains(low) else { return nil }
                        position += 6
                    }
                default:
                    return nil
                }
                continue
            }
            // JSON has no raw control characters inside strings.
            if byte < 0x20 { return nil }
            if byte >= 0x80 { sawNonASCII = true }
            position += 1
        }
        return nil
    }

    /// The code of the `\uXXXX` escape at `start`, if one is there.
    private func hexEscape(at start: Int) -> UInt32? {
        guard start + 6 <= bytes.count, bytes[start] == UInt8(ascii: "\\"), bytes[start + 1] == UInt8(ascii: "u")
        else { return nil }
        var code: UInt32 = 0
        for index in start + 2..<start + 6 {
            guard let digit = Self.hexValue(bytes[index]) else { return nil }
            code = code << 4 | UInt32(digit)
        }
        return code
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count,
            memcmp(bytes.baseAddress! + position, text.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }

    private mutating func null() -> Bool { literal("null") }

    private mutating func bool() -> Bool { literal("true") || literal("false") }

    /// A JSON number of any form.
    private mutating func number() -> Bool {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard digits(leadingZeroAllowed: false) else { return false }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits(leadingZeroAllowed: true) else { return false }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits(leadingZeroAllowed: true) else { return false }
        }
        return position > start
    }

    /// One or more digits; a leading zero only alone, unless allowed.
    private mutating func digits(leadingZeroAllowed: Bool) -> Bool {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        guard position > start else { return false }
        return leadingZeroAllowed || bytes[start] != UInt8(ascii: "0") || position - start == 1
    }

    /// A number with an `Int`'s value: digits that fit, or, as Foundation's decoder takes them,
    /// a fraction or an exponent whose value is whole and fits (`1.0`, `1e2`).
    private mutating func integer() -> Int? {
        let start = position
        guard number() else { return nil }
        var index = start
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        while index < position {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                return Double(text).flatMap { Int(exactly: $0) }
            }
            let digit = Int(byte - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            // Accumulating negatively reaches Int.min, which a positive accumulator cannot hold.
            let (next, overflowAgain) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// The name of a key or short value, as a `String` only when it holds escapes.
    private func keyName(_ key: ScannedString) -> KeyName {
        KeyName(bytes: UnsafeRawBufferPointer(rebasing: bytes[key.range]), hasEscapes: key.hasEscapes)
    }

    // MARK: - Values

    private func content(_ string: ScannedString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[string.range])
    }

    /// A UUID in its 36-character form, either case.
    private func uuid(_ string: ScannedString) -> UUID? {
        guard !string.hasEscapes else {
            return Self.text(of: string, in: bytes).flatMap(UUID.init(uuidString:))
        }
        let text = content(string)
        guard text.count == 36 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var index = 0
        let parsed = withUnsafeMutableBytes(of: &value) { output -> Bool in
            for byteIndex in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard text[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                }
                guard let high = Self.hexValue(text[index]), let low = Self.hexValue(text[index + 1]) else {
                    return false
                }
                output[byteIndex] = high << 4 | low
                index += 2
            }
            return true
        }
        return parsed ? UUID(uuid: value) : nil
    }

    /// An ISO 8601 time: `2025-03-01T09:30:12.345Z` or `2025-03-01T09:30:12Z` read directly, any
    /// other form as `NonFatalReport` reads it.
    private func time(_ string: ScannedString) -> Date? {
        let text = content(string)
        if !string.hasEscapes, let time = Self.utcTime(text) { return time }
        guard let text = Self.text(of: string, in: bytes) else { return nil }
        if let time = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return time }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// The common forms of a report's time, what a reporter writes: `nil` for anything else,
    /// including a day that the month does not have, which the general parser then judges.
    static func utcTime(_ text: UnsafeRawBufferPointer) -> Date? {
        guard text.count == 20 || text.count == 24, text[text.count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = text[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), hour < 24, minute < 60, second < 60, day >= 1,
            day <= daysIn(month: month, year: year)
        else { return nil }
        var milliseconds = 0
        if text.count == 24 {
            guard text[19] == UInt8(ascii: "."), let fraction = number(20..<23) else { return nil }
            milliseconds = fraction
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A string's content with its escapes resolved, or `nil` for a lone surrogate.
    private static func unescaped(_ content: UnsafeRawBufferPointer) -> String? {
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        var index = 0
        func flush() {
            scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
            utf8.removeAll(keepingCapacity: true)
        }
        func hex(at start: Int) -> UInt32 {
            (start..<start + 4).reduce(0) { $0 << 4 | UInt32(hexValue(content[$1]) ?? 0) }
        }
        while index < content.count {
            let byte = content[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escape = content[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = hex(at: index)
                index += 4
                if (0xD800..<0xDC00).contains(code) {
                    // A high surrogate needs its low one, as `\uD83D\uDE00`.
                    guard index + 6 <= content.count, content[index] == UInt8(ascii: "\\"),
                        content[index + 1] == UInt8(ascii: "u")
                    else { return nil }
                    let low = hex(at: index + 2)
                    guard (0xDC00..<0xE000).contains(low) else { return nil }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                guard let scalar = Unicode.Scalar(code) else { return nil }
                flush()
                scalars.append(scalar)
            default: utf8.append(escape)
            }
        }
        flush()
        return String(scalars)
    }
}

/// A key (or a short value such as a kind) compared with the names the scanner knows, without
/// making a `String` of it unless it holds escapes.
private struct KeyName {
    var bytes: UnsafeRawBufferPointer
    var hasEscapes: Bool

    static func ~= (name: StaticString, key: KeyName) -> Bool {
        if key.hasEscapes {
            return ReportLineScanner.text(
                of: ScannedString(range: 0..<key.bytes.count, hasEscapes: true), in: key.bytes)
                == name.description
        }
        guard key.bytes.count == name.utf8CodeUnitCount else { return false }
        guard let base = key.bytes.baseAddress else { return true }
        return memcmp(base, name.utf8Start, key.bytes.count) == 0
    }
}
