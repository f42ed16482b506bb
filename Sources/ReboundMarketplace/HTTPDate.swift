/// Formats instants as HTTP dates, the IMF-fixdate form of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`).
///
/// Written out by hand rather than with a `DateFormatter`: the format is fixed, and a formatter
/// depends on locale and time-zone settings that are easy to get wrong.
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `secondsSince1970`, a Unix time in whole seconds.
    static func format(secondsSince1970: Int64) -> String {
        let days = secondsSince1970.floorDivided(by: 86_400)
        let secondOfDay = Int(secondsSince1970 - days * 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        // 1 January 1970 was a Thursday, the first name in the list.
        let weekday = weekdays[Int(days.floorModulo(7))]
        return "\(weekday), \(twoDigits(day)) \(months[month - 1]) \(year) "
            + "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// The proleptic Gregorian year, month (1–12) and day (1–31) of a day counted from 1 January 1970.
    ///
    /// Howard Hinnant's `civil_from_days`: count in 400-year eras that start on 1 March, so that the
    /// leap day falls at the end of a year.
    private static func civilDate(daysSince1970: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = daysSince1970 + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity, so that dates before 1970 fall on the right day.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder of ``floorDivided(by:)``, always from 0 up to `divisor - 1` for a positive divisor.
    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}
