import SceneModel

/// Evaluates a prim's `xformOpOrder` into one local `Matrix4` (UsdGeomXformable).
///
/// Conventions: USD composes ops with row vectors (`p' = p × M`, `local = op[n-1] × … × op[0]`
/// in row-major form). The element layout of a USD row-major matrix equals `Matrix4`'s
/// column-major, column-vector layout, so every op matrix is built directly as a column-vector
/// matrix and the product is taken in list order: `local = op[0] × op[1] × … × op[n-1]`; the last
/// op listed touches points first. Rotations are right-handed, in degrees; `rotateXYZ = (a, b, c)`
/// rotates about X first, then Y, then Z. Quaternions are stored (i, j, k, real).
enum XformOps {
    /// The evaluated local transform.
    struct Result {
        /// Local transform in the prim's parent frame (source units, source up axis).
        var matrix: Matrix4
        /// True when the order contains `!resetXformStack!` (parent transforms are ignored).
        var resetsXformStack: Bool
    }

    /// A finding while evaluating the ops (stable code, message).
    typealias Finding = (code: String, message: String)

    /// Computes the local transform of `prim`. Ops not listed in `xformOpOrder` are ignored;
    /// listed ops that are missing, malformed, non-finite or singular (when inverted) are skipped
    /// and reported in `findings`. Op values are read at `time` (see `UsdAttribute.value(at:)`;
    /// nil means each op's earliest sample).
    static func localTransform(
        of prim: UsdPrim, time: Double? = nil, findings: inout [Finding]
    ) -> Result {
        guard let attr = prim.attributes["xformOpOrder"] else {
            return Result(matrix: .identity, resetsXformStack: false)
        }
        guard let order = AttributeValues.tokens(attr.value(at: time)) else {
            if attr.value(at: time) != nil { findings.append(("USD_XFORM_OP_INVALID", "xformOpOrder is not a token array")) }
            return Result(matrix: .identity, resetsXformStack: false)
        }
        var matrix = Matrix4.identity
        var reset = false
        for entry in order {
            if entry == "!resetXformStack!" {
                // Ops listed before the reset are discarded along with the parent transform.
                reset = true
                matrix = .identity
                continue
            }
            var name = Substring(entry)
            let invert = name.hasPrefix("!invert!")
            if invert { name = name.dropFirst("!invert!".count) }
            let opName = String(name)
            guard let opAttr = prim.attributes[opName] else {
                findings.append(("USD_XFORM_OP_MISSING", "\(opName) is listed in xformOpOrder but not authored"))
                continue
            }
            guard let value = opAttr.value(at: time) else {
                findings.append(("USD_XFORM_OP_MISSING", "\(opName) has no value"))
                continue
            }
            guard var op = opMatrix(name: opName, value: value, findings: &findings) else { continue }
            if invert {
                guard let inv = op.inverse else {
                    findings.append(("USD_XFORM_OP_INVALID", "\(opName) cannot be inverted (singular)"))
                    continue
                }
                op = inv
            }
            matrix = multiply(matrix, op)
        }
        return Result(matrix: matrix, resetsXformStack: reset)
    }

    /// The matrix of one op from its attribute name (`xformOp:<type>[:suffix]`) and value; nil
    /// (with a finding) when the type is unknown or the value malformed.
    static func opMatrix(name: String, value: SdfValue, findings: inout [Finding]) -> Matrix4? {
        let parts = name.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "xformOp" else {
            findings.append(("USD_XFORM_OP_UNSUPPORTED", "\(name) is not an xformOp attribute"))
            return nil
        }
        let type = String(parts[1])
        func bad(_ why: String) -> Matrix4? {
            findings.append(("USD_XFORM_OP_INVALID", "\(name): \(why)"))
            return nil
        }
        guard let d = AttributeValues.doubles(value), d.allSatisfy({ $0.isFinite }) else {
            return bad("value is not a finite number")
        }
        switch type {
        case "translate":
            guard d.count == 3 else { return bad("expected 3 components") }
            return .translation(d[0], d[1], d[2])
        case "scale":
            if d.count == 1 { return .scale(d[0], d[0], d[0]) }
            guard d.count == 3 else { return bad("expected 3 components") }
            return .scale(d[0], d[1], d[2])
        case "rotateX", "rotateY", "rotateZ":
            guard d.count == 1 else { return bad("expected 1 component") }
            let axis = type == "rotateX" ? 0 : type == "rotateY" ? 1 : 2
            return .rotation(axis: axis, degrees: d[0])
        case "rotateXYZ", "rotateXZY", "rotateYXZ", "rotateYZX", "rotateZXY", "rotateZYX":
            guard d.count == 3 else { return bad("expected 3 components") }
            return eulerRotation(order: type.dropFirst("rotate".count), degrees: d)
        case "orient":
            guard d.count == 4 else { return bad("expected a quaternion") }
            // Storage order is (i, j, k, real).
            let n = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]
            guard n > 0 else { return bad("zero quaternion") }
            return .rotation(quaternionX: d[0], y: d[1], z: d[2], w: d[3])
        case "transform":
            guard d.count == 16 else { return bad("expected a 4×4 matrix") }
            return Matrix4(usdRowMajor: d)
        default:
            findings.append(("USD_XFORM_OP_UNSUPPORTED", "\(name): unknown op type \(type)"))
            return nil
        }
    }

    /// Euler rotation for `rotate<ABC>` with angles given per axis X, Y, Z (USD stores the three
    /// angles in X, Y, Z order whatever the op order). The first letter rotates points first.
    static func eulerRotation(order: Substring, degrees d: [Double]) -> Matrix4 {
        var m = Matrix4.identity
        for ch in order {
            let axis: Int
            switch ch {
            case "X": axis = 0
            case "Y": axis = 1
            default: axis = 2
            }
            // Column vectors: a later rotation multiplies from the left.
            m = multiply(.rotation(axis: axis, degrees: d[axis]), m)
        }
        return m
    }

    /// `a × b` that skips work when either side is the identity.
    @inline(__always)
    static func multiply(_ a: Matrix4, _ b: Matrix4) -> Matrix4 {
        if a.isIdentity { return b }
        if b.isIdentity { return a }
        return a * b
    }
}
