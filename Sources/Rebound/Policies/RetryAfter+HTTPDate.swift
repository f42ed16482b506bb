extension RetryAfter {
    /// An HTTP-date (RFC 9110, section 5.6.7) in any of its three forms, parsed by hand.
    struct HTTPDate: Hashable {
        var year: Int
        var month: Int
        var day: Int
        var hour: Int
        var minute: Int
        var second: Int

        /// Parses `bytes` as an IMF-fixdate, an RFC 850 date or an asctime date.
        ///
        /// - Parameters:
        ///   - bytes: The trimmed field value.
        ///   - now: The current time in whole seconds since 1970, to place an RFC 850 two-digit year.
        init?(_ bytes: ArraySlice<UInt8>, now: Int64) {
            guard let date = Self.imfFixdate(bytes) ?? Self.rfc850(bytes, now: now) ?? Self.asctime(bytes)
            else { return nil }
            self = date
        }

        /// Seconds since 1970-01-01T00:00:00Z; a leap second counts as the next minute's first.
        var secondsSince1970: Int64 {
            let days = Int64(Self.daysSince1970(year: year, month: month, day: day))
            return days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        }

        // MARK: The three forms

        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        private static func imfFixdate(_ bytes: ArraySlice<UInt8>) -> HTTPDate? {
            var scanner = Scanner(bytes)
            guard scanner.name(in: shortDayNames) != nil, scanner.literal(", "),
                let day = scanner.number(digits: 2), scanner.literal(" "),
                let month = scanner.name(in: monthNames), scanner.literal(" "),
                let year = scanner.number(digits: 4), scanner.literal(" "),
                let time = scanner.time(), scanner.literal(" GMT"), scanner.isAtEnd
            else { return nil }
            return HTTPDate(year: year, month: month + 1, day: day, time: time)
        }

        /// `Sunday, 06-Nov-94 08:49:37 GMT`
        private static func rfc850(_ bytes: ArraySlice<UInt8>, now: Int64) -> HTTPDate? {
            var scanner = Scanner(bytes)
            guard scanner.name(in: longDayNames) != nil, scanner.literal(", "),
                let day = scanner.number(digits: 2), scanner.literal("-"),
                let month = scanner.name(in: monthNames), scanner.literal("-"),
                let twoDigitYear = scanner.number(digits: 2), scanner.literal(" "),
                let time = scanner.time(), scanner.literal(" GMT"), scanner.isAtEnd
            else { return nil }
            let secondOfDay = time.hour * 3_600 + time.minute * 60 + time.second
            let year = fullYear(twoDigitYear, month: month + 1, day: day, secondOfDay: secondOfDay, now: now)
            return HTTPDate(year: year, month: month + 1, day: day, time: time)
        }

        /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space) or `Sun Nov 16 08:49:37 1994`.
        private static func asctime(_ bytes: ArraySlice<UInt8>) -> HTTPDate? {
            var scanner = Scanner(bytes)
            guard scanner.name(in: shortDayNames) != nil, scanner.literal(" "),
                let month = scanner.name(in: monthNames), scanner.literal(" ")
            else { return nil }
            let day: Int?
            if scanner.literal(" ") {
                day = scanner.number(digits: 1)
            } else {
                day = scanner.number(digits: 2)
            }
            guard let day, scanner.literal(" "),
                let time = scanner.time(), scanner.literal(" "),
                let year = scanner.number(digits: 4), scanner.isAtEnd
            else { return nil }
            return HTTPDate(year: year, month: month + 1, day: day, time: time)
        }

        /// Validates the fields; `nil` for a day the month lacks or an impossible time.
        private init?(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) {
            guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
                (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second)
            else { return nil }
            self.init(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
        }

        private init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            self.year = year
            self.month = month
            self.day = day
            self.hour = hour
            self.minute = minute
            self.second = second
        }

        /// The latest year ending in `twoDigitYear` that puts the date at most 50 years after `now`.
        ///
        /// RFC 9110 requires that a date which "appears to be more than 50 years in the future" be
        /// read in the most recent past year with the same two digits; taking the latest year that
        /// is not more than 50 years ahead does exactly that, to the second, and otherwise picks the
        /// nearest reading. "50 years after" is the same calendar day and time, 50 years on.
        static func fullYear(_ twoDigitYear: Int, month: Int, day: Int, secondOfDay: Int, now: Int64) -> Int {
            let (nowDays, nowSecondOfDay) = now.quotientAndRemainder(dividingBy: 86_400)
            let days = nowSecondOfDay < 0 ? Int(nowDays) - 1 : Int(nowDays)
            let nowTime = nowSecondOfDay < 0 ? Int(nowSecondOfDay) + 86_400 : Int(nowSecondOfDay)
            let nowDate = civilDate(daysSince1970: days)
            let limitYear = nowDate.year + 50
            let year = limitYear - ((limitYear - twoDigitYear) % 100 + 100) % 100
            let isBeyondLimit = (month, day, secondOfDay) > (nowDate.month, nowDate.day, nowTime)
            return year == limitYear && isBeyondLimit ? year - 100 : year
        }

        // MARK: Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's civil-date algorithms)

        static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
            let shiftedYear = month <= 2 ? year - 1 : year
            let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
            let yearOfEra = shiftedYear - era * 400
            let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }

        static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
            let shifted = days + 719_468
            let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let shiftedMonth = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
            let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
            // Years in this scheme begin in March, so January and February belong to the next one.
            let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            return (year, month, day)
        }

        private static func daysIn(month: Int, year: Int) -> Int {
            switch month {
            case 2:
                let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
                return isLeap ? 29 : 28
            case 4, 6, 9, 11:
                return 30
            default:
                return 31
            }
        }

        private static let shortDayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        private static let longDayNames = [
            "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
        ]
        private static let monthNames = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]
    }

    /// A cursor over ASCII bytes that consumes only on a match.
    private struct Scanner {
        private let bytes: ArraySlice<UInt8>
        private var index: ArraySlice<UInt8>.Index

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            self.index = bytes.startIndex
        }

        var isAtEnd: Bool { index == bytes.endIndex }

        /// Consumes `text` if the bytes continue with it, byte for byte.
        mutating func literal(_ text: String) -> Bool {
            let utf8 = text.utf8
            guard bytes[index...].starts(with: utf8) else { return false }
            index += utf8.count
            return true
        }

        /// Consumes the first of `names` the bytes continue with, and returns its position.
        mutating func name(in names: [String]) -> Int? {
            names.firstIndex { literal($0) }
        }

        /// Consumes exactly `digits` ASCII digits and returns their value.
        mutating func number(digits: Int) -> Int? {
            guard bytes.endIndex - index >= digits else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += digits
            return value
        }

        /// Consumes `HH:MM:SS`; ranges are checked by the caller.
        mutating func time() -> (hour: Int, minute: Int, second: Int)? {
            let start = index
            guard let hour = number(digits: 2), literal(":"),
                let minute = number(digits: 2), literal(":"),
                let second = number(digits: 2)
            else {
                index = start
                return nil
            }
            return (hour, minute, second)
        }
    }
}
