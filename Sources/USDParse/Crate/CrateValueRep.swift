/// The 64-bit description of a field value:
///
/// ```
/// bit 63     isArray        value is an array of `type`
/// bit 62     isInlined      value is packed into the payload bits
/// bit 61     isCompressed   array data uses integer / float compression
/// bit 60     isArrayEdit    (≥ 0.14.0) value is an array edit of `type`
/// bits 48–55 type           CrateType
/// bits 0–47  payload        inline bits, or the absolute offset of the value data
/// ```
struct CrateValueRep: Hashable, Sendable, CustomStringConvertible {
    let raw: UInt64

    init(_ raw: UInt64) { self.raw = raw }

    var isArray: Bool { raw & (1 << 63) != 0 }
    var isInlined: Bool { raw & (1 << 62) != 0 }
    var isCompressed: Bool { raw & (1 << 61) != 0 }
    var isArrayEdit: Bool { raw & (1 << 60) != 0 }
    var typeByte: UInt8 { UInt8(truncatingIfNeeded: raw >> 48) }
    var payload: UInt64 { raw & 0x0000_FFFF_FFFF_FFFF }
    /// The low 32 payload bits, used by every inline encoding.
    var payload32: UInt32 { UInt32(truncatingIfNeeded: raw) }

    var description: String { "0x" + String(raw, radix: 16, uppercase: true) }
}

/// The crate value type enumeration (the `type` byte of a ValueRep). Numbers are fixed by the
/// format; new types are appended.
enum CrateType: UInt8, Sendable {
    case bool = 1, uchar, int, uint, int64, uint64, half, float, double, string, token, assetPath
    case matrix2d, matrix3d, matrix4d, quatd, quatf, quath
    case vec2d, vec2f, vec2h, vec2i, vec3d, vec3f, vec3h, vec3i, vec4d, vec4f, vec4h, vec4i
    case dictionary = 31, tokenListOp, stringListOp, pathListOp, referenceListOp
    case intListOp, int64ListOp, uintListOp, uint64ListOp
    case pathVector = 40, tokenVector, specifier, permission, variability, variantSelectionMap
    case timeSamples = 46, payload, doubleVector, layerOffsetVector, stringVector
    case valueBlock = 51, value, unregisteredValue, unregisteredValueListOp, payloadListOp
    case timeCode = 56, pathExpression, relocates, spline, animationBlock, duration

    /// The Sdf element type for types that can be scalars or array elements; nil for composites.
    var valueType: SdfValueType? {
        switch self {
        case .bool: return .bool
        case .uchar: return .uchar
        case .int: return .int
        case .uint: return .uint
        case .int64: return .int64
        case .uint64: return .uint64
        case .half: return .half
        case .float: return .float
        case .double: return .double
        case .string: return .string
        case .token: return .token
        case .assetPath: return .asset
        case .matrix2d: return .matrix2d
        case .matrix3d: return .matrix3d
        case .matrix4d: return .matrix4d
        case .quatd: return .quatd
        case .quatf: return .quatf
        case .quath: return .quath
        case .vec2d: return .double2
        case .vec2f: return .float2
        case .vec2h: return .half2
        case .vec2i: return .int2
        case .vec3d: return .double3
        case .vec3f: return .float3
        case .vec3h: return .half3
        case .vec3i: return .int3
        case .vec4d: return .double4
        case .vec4f: return .float4
        case .vec4h: return .half4
        case .vec4i: return .int4
        case .timeCode: return .timecode
        case .pathExpression: return .pathExpression
        case .duration: return .duration
        default: return nil
        }
    }

    /// Bytes of one component on disk (string-like types store a u32 index).
    var componentSize: Int {
        switch self {
        case .bool, .uchar: return 1
        case .half, .quath, .vec2h, .vec3h, .vec4h: return 2
        case .double, .int64, .uint64, .matrix2d, .matrix3d, .matrix4d, .quatd, .vec2d, .vec3d, .vec4d, .timeCode,
            .duration:
            return 8
        default: return 4
        }
    }

    /// Types whose scalar value always sits in the payload bits, whatever the inline bit says.
    var isAlwaysInlined: Bool {
        switch self {
        case .bool, .uchar, .int, .uint, .half, .float, .vec2h, .string, .token, .assetPath, .specifier, .permission,
            .variability, .valueBlock, .animationBlock:
            return true
        default: return false
        }
    }

    /// Types with an optional inline form (selected by the inline bit).
    var hasInlineForm: Bool {
        switch self {
        case .int64, .uint64, .double, .matrix2d, .matrix3d, .matrix4d, .vec2d, .vec2f, .vec2i, .vec3d, .vec3f, .vec3h,
            .vec3i, .vec4d, .vec4f, .vec4h, .vec4i, .dictionary:
            return true
        default: return isAlwaysInlined
        }
    }

    /// Types whose value can contain other values (and so can refer back to themselves).
    var isRecursive: Bool {
        switch self {
        case .dictionary, .referenceListOp, .timeSamples, .value, .unregisteredValue: return true
        default: return false
        }
    }
}
