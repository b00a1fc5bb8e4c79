#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic clock in nanoseconds (`CLOCK_MONOTONIC`); `ms` gives the milliseconds from `a` to `b`,
/// rounded to microseconds.
public enum Clock {
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The same clock in seconds, for deadlines and intervals.
    public static func seconds() -> Double { Double(now()) / 1e9 }

    public static func ms(_ a: UInt64, _ b: UInt64) -> Double { (Double(b &- a) / 1e6 * 1000).rounded() / 1000 }
}

