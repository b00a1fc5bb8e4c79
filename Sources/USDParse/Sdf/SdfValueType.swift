/// The element type of a scalar or array value, with its component layout. Role names
/// (`point3f`, `color3f`, `texCoord2f`, `normal3f`, `frame4d`, …) map onto these storage types;
/// the role stays in the attribute's `typeName` field.
public enum SdfValueType: String, Hashable, Sendable, CaseIterable {
    case bool, uchar, int, uint, int64, uint64, half, float, double
    case string, token, asset, timecode, duration, pathExpression
    case int2, int3, int4, half2, half3, half4, float2, float3, float4, double2, double3, double4
    case quath, quatf, quatd, matrix2d, matrix3d, matrix4d

    /// Number of storage components per element (3 for `float3`, 4 for quaternions, 16 for `matrix4d`).
    public var components: Int {
        switch self {
        case .int2, .half2, .float2, .double2: return 2
        case .int3, .half3, .float3, .double3: return 3
        case .int4, .half4, .float4, .double4, .quath, .quatf, .quatd, .matrix2d: return 4
        case .matrix3d: return 9
        case .matrix4d: return 16
        default: return 1
        }
    }

    /// Which `SdfStorage` case holds values of this type.
    public var storageKind: SdfStorage.Kind {
        switch self {
        case .bool: return .bool
        case .uchar: return .uint8
        case .int, .int2, .int3, .int4: return .int32
        case .uint: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .half, .half2, .half3, .half4, .quath: return .half
        case .float, .float2, .float3, .float4, .quatf: return .float
        case .double, .double2, .double3, .double4, .quatd, .matrix2d, .matrix3d, .matrix4d, .timecode, .duration:
            return .double
        case .string, .token, .asset, .pathExpression: return .string
        }
    }

    /// Maps a USD attribute type name (`point3f`, `color3f[]`, `texCoord2f`, `frame4d`, …) to its
    /// storage type and whether it is an array. Returns nil for unknown names and for the
    /// value-less `opaque` / `group` types.
    public static func parse(typeName: String) -> (type: SdfValueType, isArray: Bool)? {
        var name = Substring(typeName)
        var isArray = false
        if name.hasSuffix("[]") {
            isArray = true
            name = name.dropLast(2)
        }
        if let t = SdfValueType(rawValue: String(name)) { return (t, isArray) }
        let roles: [(String, Int)] = [("point3", 3), ("normal3", 3), ("vector3", 3), ("color3", 3), ("color4", 4),
                                      ("texCoord2", 2), ("texCoord3", 3)]
        for (prefix, n) in roles where name.hasPrefix(prefix) && name.count == prefix.count + 1 {
            let suffix = name.last!
            let base: String
            switch suffix {
            case "h": base = "half"
            case "f": base = "float"
            case "d": base = "double"
            default: return nil
            }
            guard let t = SdfValueType(rawValue: base + String(n)) else { return nil }
            return (t, isArray)
        }
        if name == "frame4d" { return (.matrix4d, isArray) }
        return nil
    }
}

/// Flat typed storage for scalar and array values; vectors, quaternions and matrices are stored
/// component by component. Quaternions are (i, j, k, real); matrices are row-major (USD order).
/// Half values keep their raw binary16 bits.
public enum SdfStorage: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case bool, uint8, int32, uint32, int64, uint64, half, float, double, string }

    case bool([Bool])
    case uint8([UInt8])
    case int32([Int32])
    case uint32([UInt32])
    case int64([Int64])
    case uint64([UInt64])
    case half([UInt16])
    case float([Float])
    case double([Double])
    case string([String])

    public var kind: Kind {
        switch self {
        case .bool: return .bool
        case .uint8: return .uint8
        case .int32: return .int32
        case .uint32: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .half: return .half
        case .float: return .float
        case .double: return .double
        case .string: return .string
        }
    }

    /// Number of stored components.
    public var count: Int {
        switch self {
        case .bool(let a): return a.count
        case .uint8(let a): return a.count
        case .int32(let a): return a.count
        case .uint32(let a): return a.count
        case .int64(let a): return a.count
        case .uint64(let a): return a.count
        case .half(let a): return a.count
        case .float(let a): return a.count
        case .double(let a): return a.count
        case .string(let a): return a.count
        }
    }

    /// Component `i` as a Double (numeric kinds only; strings give nil). Exact for every kind but
    /// 64-bit integers beyond 2^53.
    public func double(at i: Int) -> Double? {
        switch self {
        case .bool(let a): return a[i] ? 1 : 0
        case .uint8(let a): return Double(a[i])
        case .int32(let a): return Double(a[i])
        case .uint32(let a): return Double(a[i])
        case .int64(let a): return Double(a[i])
        case .uint64(let a): return Double(a[i])
        case .half(let a): return Double(Half.toFloat(a[i]))
        case .float(let a): return Double(a[i])
        case .double(let a): return a[i]
        case .string: return nil
        }
    }

    /// All components as Doubles (numeric kinds), or nil for strings.
    public var doubles: [Double]? {
        switch self {
        case .float(let a): return a.map(Double.init)
        case .double(let a): return a
        case .string: return nil
        default: return (0..<count).map { double(at: $0)! }
        }
    }

    /// All components as Floats (numeric kinds), or nil for strings.
    public var floats: [Float]? {
        switch self {
        case .float(let a): return a
        case .double(let a): return a.map { Float($0) }
        case .half(let a): return a.map(Half.toFloat)
        case .string: return nil
        default: return (0..<count).map { Float(double(at: $0)!) }
        }
    }

    /// All components as Int64 (integer and bool kinds), or nil otherwise.
    public var integers: [Int64]? {
        switch self {
        case .int32(let a): return a.map(Int64.init)
        case .uint32(let a): return a.map(Int64.init)
        case .int64(let a): return a
        case .uint64(let a): return a.map { Int64(truncatingIfNeeded: $0) }
        case .uint8(let a): return a.map(Int64.init)
        case .bool(let a): return a.map { $0 ? 1 : 0 }
        default: return nil
        }
    }

    public var strings: [String]? {
        if case .string(let a) = self { return a }
        return nil
    }
}
