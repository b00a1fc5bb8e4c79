/// A numeric literal of USDA text: an integer (sign + magnitude, exact) or a real number.
enum USDANumber: Sendable, Equatable {
    case integer(negative: Bool, magnitude: UInt64)
    case real(Double)

    /// The value as a Double (`-0` stays −0.0).
    var double: Double {
        switch self {
        case .integer(let negative, let magnitude):
            let d = Double(magnitude)
            return negative ? -d : d
        case .real(let d): return d
        }
    }

    /// The value converted to an integer of type `T`, or nil when it does not fit. Reals are
    /// truncated toward zero first (USD's text reader does the same); non-finite reals never fit.
    func integer<T: FixedWidthInteger>(as: T.Type) -> T? {
        switch self {
        case .integer(let negative, let magnitude):
            if !negative || magnitude == 0 { return T(exactly: magnitude) }
            guard T.isSigned else { return nil }
            // -magnitude must be ≥ T.min, i.e. magnitude ≤ |T.min|.
            let limit = UInt64(T.max) &+ 1
            guard magnitude <= limit else { return nil }
            if magnitude == limit { return T.min }
            guard let positive = T(exactly: magnitude) else { return nil }
            return 0 - positive
        case .real(let d):
            guard d.isFinite else { return nil }
            return T(exactly: d.rounded(.towardZero))
        }
    }

    /// True when the value is non-zero (bool attributes accept any number).
    var isNonZero: Bool {
        switch self {
        case .integer(_, let magnitude): return magnitude != 0
        case .real(let d): return d != 0
        }
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// Converts the bytes of a number token (already validated by the lexer: `-?digits[.digits][e±digits]`,
    /// `.digits…`, `inf`, `-inf`, `nan`). Integers that overflow UInt64 become reals, like USD.
    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> USDANumber {
        let n = s.count
        var i = 0
        var negative = false
        if i < n && s[i] == 0x2D {
            negative = true
            i += 1
        }
        guard i < n else { return .real(.nan) }
        if s[i] == 0x69 { return .real(negative ? -.infinity : .infinity) }  // inf
        if s[i] == 0x6E { return .real(.nan) }  // nan

        var mantissa: UInt64 = 0
        var significant = 0  // digits folded into `mantissa` after the first non-zero digit
        var exponent = 0
        var truncated = false
        var isInteger = true
        var integerOverflow = false
        // Integer part.
        while i < n, s[i] >= 0x30, s[i] <= 0x39 {
            let d = UInt64(s[i] - 0x30)
            if significant < 19 {
                mantissa = mantissa &* 10 &+ d
                if mantissa != 0 { significant += 1 }
            } else {
                exponent += 1
                if d != 0 { truncated = true }
                integerOverflow = true
            }
            i += 1
        }
        if i < n && s[i] == 0x2E {
            isInteger = false
            i += 1
            while i < n, s[i] >= 0x30, s[i] <= 0x39 {
                let d = UInt64(s[i] - 0x30)
                if significant < 19 {
                    mantissa = mantissa &* 10 &+ d
                    exponent -= 1
                    if mantissa != 0 { significant += 1 }
                } else if d != 0 {
                    truncated = true
                }
                i += 1
            }
        }
        if i < n && (s[i] == 0x65 || s[i] == 0x45) {
            isInteger = false
            i += 1
            var expNegative = false
            if i < n && (s[i] == 0x2B || s[i] == 0x2D) {
                expNegative = s[i] == 0x2D
                i += 1
            }
            var e = 0
            while i < n, s[i] >= 0x30, s[i] <= 0x39 {
                if e < 1_000_000 { e = e * 10 + Int(s[i] - 0x30) }
                i += 1
            }
            exponent += expNegative ? -e : e
        }

        if isInteger {
            if !integerOverflow { return .integer(negative: negative, magnitude: mantissa) }
            // 20+ digits: exact when it still fits UInt64.
            if let exact = exactUInt64(s) { return .integer(negative: negative, magnitude: exact) }
            return .real(slowParse(s))
        }
        if mantissa == 0 && !truncated { return .real(negative ? -0.0 : 0.0) }
        // Clinger's fast path: exact when the mantissa and the power of ten are exact doubles.
        if !truncated && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
            var v = Double(mantissa)
            if exponent >= 0 { v *= powersOfTen[exponent] } else { v /= powersOfTen[-exponent] }
            return .real(negative ? -v : v)
        }
        return .real(slowParse(s))
    }

    private static func exactUInt64(_ s: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var v: UInt64 = 0
        for c in s where c >= 0x30 && c <= 0x39 {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(c - 0x30))
            if o1 || o2 { return nil }
            v = a
        }
        return v
    }

    /// Correctly rounded conversion through the standard library.
    private static func slowParse(_ s: UnsafeBufferPointer<UInt8>) -> Double {
        Double(String(decoding: s, as: UTF8.self)) ?? .nan
    }
}
