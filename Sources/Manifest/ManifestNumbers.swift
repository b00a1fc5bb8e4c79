import SceneModel
import JSONCore

/// The manifest's number policy: every real-valued measurement (bounds, transforms, dimensions,
/// corners, centres, metrics, ratios, camera parameters) is rounded to `decimalPlaces` decimal
/// places before it is written, so 1 µm for lengths in metres. This removes float noise
/// (`0.10000000149011612` from a 32-bit vertex becomes `0.1`), keeps files small, and makes the
/// output independent of last-bit differences between platforms' maths libraries.
///
/// Rounding is to nearest, ties away from zero; a result of negative zero becomes zero. Values
/// whose magnitude is 10⁹ or more are left unchanged (they have no micrometre digits to remove
/// within a double's precision). Non-finite values pass through unchanged; the builder decides
/// whether they become `null` or an error.
enum ManifestNumbers {
    /// Decimal places kept for real-valued measurements.
    static let decimalPlaces = 6

    private static let scale = 1e6

    /// `x` rounded to `decimalPlaces` decimal places.
    static func round(_ x: Double) -> Double {
        guard x.isFinite, abs(x) < 1e9 else { return x }
        let r = (x * scale).rounded(.toNearestOrAwayFromZero) / scale
        return r == 0 ? 0 : r
    }

    /// `x` rounded, or nil when `x` is nil or not finite (what the file writes as `null`).
    static func rounded(_ x: Double?) -> Double? {
        guard let x, x.isFinite else { return nil }
        return round(x)
    }

    /// A rounded number, or `null` when `x` is nil or not finite.
    static func measure(_ x: Double?) -> JSONValue { rounded(x).map { .double($0) } ?? .null }

    /// `[x, y, z]`, rounded. The caller checks finiteness first.
    static func vector(_ v: SIMD3<Double>) -> JSONValue {
        .array([.double(round(v.x)), .double(round(v.y)), .double(round(v.z))])
    }

    /// The 16 column-major elements, rounded.
    static func matrix(_ m: Matrix4) -> JSONValue {
        .array(m.m.map { .double(round($0)) })
    }

    /// `{"min": [x, y, z], "max": [x, y, z]}`, or `null` for an empty box.
    static func bounds(_ b: Bounds) -> JSONValue {
        guard !b.isEmpty, isFinite(b.min), isFinite(b.max) else { return .null }
        return .object(["min": vector(b.min), "max": vector(b.max)])
    }

    static func isFinite(_ v: SIMD3<Double>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }
}
