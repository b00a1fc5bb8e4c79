/// How a primvar's elements map onto mesh topology (`varying` reads as `vertex`: both hold one
/// value per point and are interpolated the same way for a triangle mesh).
enum PrimvarInterpolation: String, Sendable {
    case constant, uniform, vertex, faceVarying

    /// The argument that belongs to this interpolation.
    @inline(__always)
    func select(constant: Int, uniform: Int, vertex: Int, faceVarying: Int) -> Int {
        switch self {
        case .constant: return constant
        case .uniform: return uniform
        case .vertex: return vertex
        case .faceVarying: return faceVarying
        }
    }

    init?(token: String) {
        switch token {
        case "constant": self = .constant
        case "uniform": self = .uniform
        case "vertex", "varying": self = .vertex
        case "faceVarying": self = .faceVarying
        default: return nil
        }
    }
}

/// One primvar read from a prim: flat float components, interpolation and optional indices
/// (`primvars:<name>:indices`). All element lookups go through `element(corner:face:point:)`,
/// which never traps once `validate` has passed.
struct Primvar {
    /// Attribute name (`primvars:st`, `normals`, …).
    var name: String
    /// Flat values, `components` per element.
    var values: [Float]
    var components: Int
    var interpolation: PrimvarInterpolation
    /// Indexed primvar: element k is `values[indices[k]]`; −1 means "no value".
    var indices: [Int32]?
    /// True when `indices` contains −1.
    var hasMissing = false

    var elementCount: Int { components > 0 ? values.count / components : 0 }

    /// True when the element of a corner depends only on its point (or on nothing).
    var isPerPoint: Bool { interpolation == .constant || interpolation == .vertex }

    /// Reads attribute `name` from `prim` at `time` (see `UsdAttribute.value(at:)`; nil means the
    /// earliest sample). Returns nil when absent or blocked; throws nothing but reports malformed
    /// data through `problem` (then returns nil).
    static func read(
        _ prim: UsdPrim, name: String, components: Int, fallback: PrimvarInterpolation, time: Double? = nil,
        problem: inout String?
    ) -> Primvar? {
        guard let attr = prim.attributes[name], let value = attr.value(at: time) else { return nil }
        guard let values = AttributeValues.floats(value, components: components) else {
            problem = "\(name) has type \(attr.typeName), expected \(components) numeric components"
            return nil
        }
        if let es = AttributeValues.double(attr.metadata["elementSize"]), es > 1 {
            problem = "\(name) has elementSize \(es); only 1 is supported"
            return nil
        }
        var interp = fallback
        if let token = AttributeValues.token(attr.metadata["interpolation"]) {
            guard let parsed = PrimvarInterpolation(token: token) else {
                problem = "\(name) has unknown interpolation \(token)"
                return nil
            }
            interp = parsed
        }
        var pv = Primvar(name: name, values: values, components: components, interpolation: interp)
        if let idxAttr = prim.attributes[name + ":indices"], let idxValue = idxAttr.value(at: time) {
            guard let idx = AttributeValues.int32s(idxValue) else {
                problem = "\(name):indices is not an integer array"
                return nil
            }
            pv.indices = idx
        }
        return pv
    }

    /// Checks sizes and index ranges against the topology; returns a problem description or nil.
    mutating func validate(faceCount: Int, pointCount: Int, cornerCount: Int) -> String? {
        let required = interpolation.select(constant: 1, uniform: faceCount, vertex: pointCount, faceVarying: cornerCount)
        let elements = elementCount
        if let indices {
            guard indices.count >= required else {
                return "\(name):indices has \(indices.count) entries; \(interpolation.rawValue) needs \(required)"
            }
            let limit = Int32(clamping: elements)
            var missing = false
            for i in indices {
                if i == -1 {
                    missing = true
                    continue
                }
                if i < 0 || i >= limit { return "\(name):indices has index \(i) outside 0..<\(elements)" }
            }
            hasMissing = missing
            if elements == 0 && required > 0 && !missing { return "\(name) has no values" }
        } else {
            guard elements >= required else {
                return "\(name) has \(elements) values; \(interpolation.rawValue) needs \(required)"
            }
            if required == 0 && elements == 0 { return nil }
        }
        return nil
    }

    /// Element index for a corner (`corner` = position in `faceVertexIndices`, `face`, `point`);
    /// −1 when an indexed primvar has no value there.
    @inline(__always)
    func element(corner: Int, face: Int, point: Int) -> Int {
        let e = interpolation.select(constant: 0, uniform: face, vertex: point, faceVarying: corner)
        if let indices { return Int(indices[e]) }
        return e
    }

    /// True when every element a mesh can reach holds the same value (cheap check used to keep
    /// constant-looking colours out of vertex streams).
    var isUniformValue: Bool {
        if interpolation == .constant { return true }
        if hasMissing { return false }
        let n = elementCount
        guard n > 1 else { return true }
        for e in 1..<n {
            for c in 0..<components where values[e * components + c] != values[c] { return false }
        }
        return true
    }
}
