/// Vector helpers shared by the feature modules. The formulas are written out component by
/// component so that every module gets the same rounding.
extension SIMD3 where Scalar: FloatingPoint {
    /// The dot product.
    @inlinable public func dot(_ o: SIMD3) -> Scalar { x * o.x + y * o.y + z * o.z }

    /// The cross product `self × o` (right-handed).
    @inlinable public func cross(_ o: SIMD3) -> SIMD3 {
        SIMD3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    /// The Euclidean length.
    @inlinable public var length: Scalar { dot(self).squareRoot() }

    /// True when no component is NaN or infinite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}

extension SIMD2 where Scalar: FloatingPoint {
    /// The dot product.
    @inlinable public func dot(_ o: SIMD2) -> Scalar { x * o.x + y * o.y }

    /// The z component of the cross product of `self` and `o` (positive when `o` is
    /// counter-clockwise from `self`).
    @inlinable public func cross(_ o: SIMD2) -> Scalar { x * o.y - y * o.x }

    /// The Euclidean length.
    @inlinable public var length: Scalar { dot(self).squareRoot() }

    /// True when neither component is NaN or infinite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite }
}

extension SIMD3 where Scalar == Float {
    /// The unit vector along `self`, or zero when `self` is (nearly) zero or not finite. Multiplies
    /// by the reciprocal length, which is what renderers want per pixel.
    @inlinable public var normalizedOrZero: SIMD3<Float> {
        let l2 = dot(self)
        guard l2 > 1e-30, l2.isFinite else { return .zero }
        return self * (1 / l2.squareRoot())
    }
}

extension SIMD3 where Scalar == Double {
    /// The unit vector along `self`, or zero when `self` is (nearly) zero or not finite.
    @inlinable public var normalizedOrZero: SIMD3<Double> {
        let l = length
        guard l > 1e-300, l.isFinite else { return .zero }
        return self / l
    }
}
