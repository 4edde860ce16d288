import Glibc

/// The date functions (`MILLIS_TO_STR`, `MILLIS_TO_UTC`, `STR_TO_MILLIS`, `STR_TO_UTC`): ISO 8601
/// text read and written as Couchbase Lite 2.8 does (Query-11). Dates are milliseconds since
/// 1970-01-01 UTC; a date without a time zone is local time, as the process's `TZ` says.
enum QueryDates {
    /// Milliseconds since the epoch of an ISO 8601 date, or nil when the text is not one.
    /// Accepted: `[-]YYYY-MM-DD`, then optionally (after spaces or `T`) `hh:mm[:ss[.fraction]]`
    /// and a zone (`Z`, `±hh:mm`, `±hhmm`); a date alone is local midnight.
    static func millis(_ text: String) -> Int64? {
        var scanner = Scanner(Array(text.utf8))
        let negative = scanner.skip("-")
        guard let year = scanner.number(4, 0...9999), scanner.skip("-"),
              let month = scanner.number(2, 1...12), scanner.skip("-"),
              let day = scanner.number(2, 1...31), dayExists(day, month: month, year: year) else { return nil }
        while scanner.skipSpace() || scanner.skip("T") {}
        var time = (hour: 0, minute: 0, seconds: 0.0)
        var zoneMinutes: Int?
        if !scanner.atEnd {
            guard let hour = scanner.number(2, 0...24), scanner.skip(":"), let minute = scanner.number(2, 0...59) else { return nil }
            time = (hour, minute, 0)
            if scanner.skip(":") {
                guard let seconds = scanner.number(2, 0...59) else { return nil }
                time.seconds = Double(seconds) + scanner.fraction()
            }
            while scanner.skipSpace() {}
            if scanner.skip("Z") || scanner.skip("z") {
                zoneMinutes = 0
            } else if let sign = scanner.sign() {
                guard let hours = scanner.number(2, 0...14) else { return nil }
                _ = scanner.skip(":")
                guard let minutes = scanner.number(2, 0...59) else { return nil }
                zoneMinutes = sign * (hours * 60 + minutes)
            }
            while scanner.skipSpace() {}
            guard scanner.atEnd else { return nil }
        }
        let signedYear = negative ? -year : year
        let offset = zoneMinutes ?? localOffsetMinutes(year: signedYear, month: month, day: day, time: time)
        let milliseconds = Int64((time.seconds * 1000).rounded())
        return epochDays(year: signedYear, month: month, day: day) * 86_400_000
            + Int64(time.hour * 3_600_000 + time.minute * 60_000) + milliseconds - Int64(offset) * 60_000
    }

    /// ISO 8601 text of a time: `YYYY-MM-DDThh:mm:ss[.mmm]` and `Z` (UTC) or the local zone's
    /// `±hhmm` (`Z` where it is UTC); milliseconds only when positive, as 2.8 writes them.
    static func string(millis: Int64, utc: Bool) -> String? {
        var seconds = time_t(millis / 1000)
        let fraction = Int(millis % 1000)
        var parts = tm()
        guard (utc ? gmtime_r(&seconds, &parts) : localtime_r(&seconds, &parts)) != nil else { return nil }
        var text = format("%FT%T", &parts)
        if fraction > 0 { text += "." + String(String(fraction + 1000).dropFirst()) }
        let zone = utc ? "+0000" : format("%z", &parts)
        text += zone.dropFirst().hasPrefix("0000") ? "Z" : zone
        return text
    }

    private static func format(_ pattern: String, _ parts: inout tm) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func dayExists(_ day: Int, month: Int, year: Int) -> Bool {
        if month == 2 { return day <= 28 || (day == 29 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) }
        return day <= 30 || [1, 3, 5, 7, 8, 10, 12].contains(month)
    }

    /// Days from 1970-01-01 to the date, by Meeus's Julian-day formula (Gregorian calendar;
    /// integer division truncates, as in 2.8, which matters only for negative years).
    private static func epochDays(year: Int, month: Int, day: Int) -> Int64 {
        let (y, m) = month <= 2 ? (year - 1, month + 12) : (year, month)
        let century = y / 100
        let julianDayPlusHalf = 36525 * (y + 4716) / 100 + 306001 * (m + 1) / 10000 + day + 2 - century + century / 4 - 1524
        return Int64(julianDayPlusHalf) - 2_440_588   // the Julian day of 1970-01-01 at midnight, plus one half
    }

    /// The local zone's offset from UTC, in minutes, at a local date and time.
    private static func localOffsetMinutes(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, seconds: Double)) -> Int {
        var parts = tm()
        parts.tm_year = Int32(clamping: year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(time.hour)
        parts.tm_min = Int32(time.minute)
        parts.tm_sec = Int32(time.seconds.rounded(.towardZero))
        parts.tm_isdst = -1
        var local = mktime(&parts)
        var resolved = tm()
        guard localtime_r(&local, &resolved) != nil else { return 0 }
        return resolved.tm_gmtoff / 60
    }

    /// Reads ASCII bytes one step at a time.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func skip(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }

        /// C's `isspace`: space, tab, newline, vertical tab, form feed, carriage return.
        mutating func skipSpace() -> Bool {
            guard index < bytes.count, bytes[index] == 0x20 || (0x09...0x0D).contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }

        /// Exactly `count` digits whose value lies in `range`.
        mutating func number(_ count: Int, _ range: ClosedRange<Int>) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            guard range.contains(value) else { return nil }
            index += count
            return value
        }

        /// `.digits` as a fraction of a second (0 when there is no such part).
        mutating func fraction() -> Double {
            guard index + 1 < bytes.count, bytes[index] == 0x2E, (0x30...0x39).contains(bytes[index + 1]) else { return 0 }
            index += 1
            var value = 0.0, scale = 1.0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                value = value * 10 + Double(bytes[index] - 0x30)
                scale *= 10
                index += 1
            }
            return value / scale
        }
    }
}
