import SceneModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Value resolution at a time code, as UsdAttribute::Get(time) does it with the stage's default
/// (linear) interpolation.
///
/// * `value(at:)` is what the scene reads: the authored default when there is one (a static
///   viewer prefers it), otherwise the time samples evaluated at `time`, or the earliest sample
///   when `time` is nil.
/// * `defaultTimeValue` is UsdAttribute::Get() at the default time code: the default only. usd-core
///   returns no value (None) for an attribute authored only as time samples, so `inspect`'s `usd`
///   counts skip such attributes, matching usd-core's analysis.
///
/// Between two samples `t0 < t < t1` with `alpha = (t − t0) / (t1 − t0)`: half, float and double
/// scalars, vectors, matrices and their arrays are interpolated linearly (`(1 − alpha)·a +
/// alpha·b`, arrays element by element when both have the same length); quaternions are
/// interpolated spherically; everything else (integers, bools, tokens, strings, arrays of
/// different lengths) holds the earlier sample. Before the first sample the first is held, after
/// the last the last. A blocked earlier sample gives no value; a blocked later sample holds the
/// earlier one.
extension UsdAttribute {
    /// The value the scene uses at `time` (stage time codes; nil means the earliest sample). Nil
    /// when unauthored or blocked.
    public func value(at time: Double?) -> SdfValue? {
        if defaultValue != nil { return value }
        guard let time else { return value }
        guard let ts = timeSamples, !ts.values.isEmpty, ts.times.count == ts.values.count else { return nil }
        return TimeSampleEvaluation.evaluate(ts, at: time)
    }

    /// UsdAttribute::Get() at the default time code: the authored default (nil when absent or
    /// blocked), never a time sample.
    public var defaultTimeValue: SdfValue? {
        guard let d = defaultValue else { return nil }
        if case .valueBlock = d { return nil }
        return d.resolved
    }

    /// True when the attribute has time samples and no default, so its scene value depends on
    /// the time code used.
    public var hasOnlyTimeSamples: Bool { defaultValue == nil && !(timeSamples?.values.isEmpty ?? true) }
}

extension UsdStage {
    /// `startTimeCode` metadata (stage time codes), nil when not authored or not numeric.
    public var startTimeCode: Double? {
        guard let t = metadata["startTimeCode"]?.double, t.isFinite else { return nil }
        return t
    }
}

/// Linear / spherical interpolation of time samples (see `UsdAttribute.value(at:)`).
enum TimeSampleEvaluation {
    /// The samples evaluated at `time`. Times must be sorted ascending (both readers sort them).
    static func evaluate(_ ts: SdfTimeSamples, at time: Double) -> SdfValue? {
        let times = ts.times
        // First index whose time is >= `time`.
        var lo = 0
        var hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < time { lo = mid + 1 } else { hi = mid }
        }
        if lo < times.count, times[lo] == time { return unblocked(ts.values[lo]) }
        if lo == 0 { return unblocked(ts.values[0]) }
        if lo == times.count { return unblocked(ts.values[times.count - 1]) }
        guard let lower = unblocked(ts.values[lo - 1]) else { return nil }
        guard let upper = unblocked(ts.values[lo]) else { return lower }
        let alpha = (time - times[lo - 1]) / (times[lo] - times[lo - 1])
        return interpolate(lower, upper, alpha: alpha) ?? lower
    }

    private static func unblocked(_ v: SdfValue) -> SdfValue? {
        switch v {
        case .valueBlock, .animationBlock: return nil
        default: return v.resolved
        }
    }

    /// The interpolated value, or nil when the values cannot be interpolated (held instead).
    static func interpolate(_ a: SdfValue, _ b: SdfValue, alpha: Double) -> SdfValue? {
        let isArray: Bool
        let type: SdfValueType
        let sa: SdfStorage
        let sb: SdfStorage
        switch (a, b) {
        case (.scalar(let ta, let x), .scalar(let tb, let y)) where ta == tb:
            isArray = false
            type = ta
            sa = x
            sb = y
        case (.array(let ta, let x), .array(let tb, let y)) where ta == tb:
            isArray = true
            type = ta
            sa = x
            sb = y
        default: return nil
        }
        guard sa.count == sb.count, sa.kind == sb.kind else { return nil }
        let storage: SdfStorage
        switch type {
        case .quath, .quatf, .quatd:
            guard let x = sa.doubles, let y = sb.doubles else { return nil }
            var out = [Double](repeating: 0, count: x.count)
            var i = 0
            while i + 4 <= x.count {
                let q = slerp(Array(x[i..<i + 4]), Array(y[i..<i + 4]), alpha: alpha)
                out.replaceSubrange(i..<i + 4, with: q)
                i += 4
            }
            storage = store(out, like: sa)
        case .half, .float, .double, .half2, .half3, .half4, .float2, .float3, .float4, .double2, .double3, .double4,
            .matrix2d, .matrix3d, .matrix4d:
            storage = lerp(sa, sb, alpha: alpha, vector: type.components > 1)
        default: return nil
        }
        return isArray ? .array(type, storage) : .scalar(type, storage)
    }

    /// Element-wise `(1 − alpha)·a + alpha·b`. Float vectors round each product to float before
    /// the sum (as float vector arithmetic does); float scalars are computed in double.
    private static func lerp(_ a: SdfStorage, _ b: SdfStorage, alpha: Double, vector: Bool) -> SdfStorage {
        let wa = 1 - alpha
        switch (a, b) {
        case (.float(let x), .float(let y)):
            if vector {
                return .float(zip(x, y).map { Float(Double($0) * wa) + Float(Double($1) * alpha) })
            }
            return .float(zip(x, y).map { Float(wa * Double($0) + alpha * Double($1)) })
        case (.double(let x), .double(let y)):
            return .double(zip(x, y).map { wa * $0 + alpha * $1 })
        case (.half(let x), .half(let y)):
            return .half(
                zip(x, y).map {
                    Half.fromFloat(Float(wa * Double(Half.toFloat($0)) + alpha * Double(Half.toFloat($1))))
                })
        default:
            return a
        }
    }

    /// Spherical interpolation of quaternions stored (i, j, k, real), taking the shorter arc.
    static func slerp(_ q0: [Double], _ q1: [Double], alpha: Double) -> [Double] {
        var cosTheta = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3]
        var sign = 1.0
        if cosTheta < 0 {
            cosTheta = -cosTheta
            sign = -1
        }
        var w0 = 1 - alpha
        var w1 = alpha
        if 1 - cosTheta > 1e-5 {
            let theta = acos(cosTheta)
            let s = sin(theta)
            w0 = sin((1 - alpha) * theta) / s
            w1 = sin(alpha * theta) / s
        }
        w1 *= sign
        return (0..<4).map { w0 * q0[$0] + w1 * q1[$0] }
    }

    private static func store(_ d: [Double], like s: SdfStorage) -> SdfStorage {
        switch s {
        case .float: return .float(d.map { Float($0) })
        case .half: return .half(d.map { Half.fromFloat(Float($0)) })
        default: return .double(d)
        }
    }
}
