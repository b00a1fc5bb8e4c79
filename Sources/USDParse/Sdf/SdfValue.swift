/// A field value in the Sdf data model, as read from a crate or a USDA layer. Both readers must
/// produce identical values for identical content.
public indirect enum SdfValue: Hashable, Sendable {
    /// One element of `type`; `storage.count == type.components`.
    case scalar(SdfValueType, SdfStorage)
    /// `n` elements of `type`; `storage.count == n * type.components`.
    case array(SdfValueType, SdfStorage)
    case dictionary([String: SdfValue])
    case specifier(SdfSpecifier)
    case permission(SdfPermission)
    case variability(SdfVariability)
    case tokenListOp(SdfListOp<String>)
    case stringListOp(SdfListOp<String>)
    case pathListOp(SdfListOp<SdfPath>)
    case referenceListOp(SdfListOp<SdfReference>)
    case payloadListOp(SdfListOp<SdfPayload>)
    /// Int and Int64 list ops.
    case intListOp(SdfListOp<Int64>)
    /// UInt and UInt64 list ops.
    case uintListOp(SdfListOp<UInt64>)
    case pathVector([SdfPath])
    case tokenVector([String])
    case stringVector([String])
    case doubleVector([Double])
    case layerOffsetVector([SdfLayerOffset])
    case variantSelection([String: String])
    case timeSamples(SdfTimeSamples)
    case payload(SdfPayload)
    case relocates([SdfPath: SdfPath])
    /// `None`: an explicitly blocked value.
    case valueBlock
    /// An animation block marker.
    case animationBlock
    /// A value the reader recognised but does not decode (splines, array edits, unknown types).
    case unsupported(String)
    /// A large array whose elements are decoded on first use (see `DeferredValue`). The accessors
    /// below resolve it; pattern matches should go through `resolve()` or `resolved`.
    case deferred(DeferredValue)

    // MARK: Deferred values

    /// This value with a deferred array decoded. Throws the decoder's `USDParseError`.
    public func resolve() throws(USDParseError) -> SdfValue {
        if case .deferred(let d) = self { return try d.resolve() }
        return self
    }

    /// This value with a deferred array decoded; a decode failure becomes `.unsupported(reason)`.
    public var resolved: SdfValue {
        guard case .deferred(let d) = self else { return self }
        do { return try d.resolve() } catch { return .unsupported(error.description) }
    }

    // MARK: Convenience accessors

    public var token: String? {
        switch resolved {
        case .scalar(.token, .string(let s)), .scalar(.string, .string(let s)), .scalar(.asset, .string(let s)):
            return s.first
        default: return nil
        }
    }

    /// A string, token or asset scalar's text.
    public var string: String? { token }

    /// A numeric scalar as Double (bool/int/float/half/double).
    public var double: Double? {
        if case .scalar(_, let st) = resolved, st.count == 1 { return st.double(at: 0) }
        return nil
    }

    public var bool: Bool? {
        let v = resolved
        if case .scalar(.bool, .bool(let b)) = v { return b.first }
        if case .scalar(_, let st) = v, st.count == 1, let d = st.double(at: 0) { return d != 0 }
        return nil
    }

    /// The element type and storage of a scalar or array.
    public var typed: (type: SdfValueType, storage: SdfStorage, isArray: Bool)? {
        switch resolved {
        case .scalar(let t, let s): return (t, s, false)
        case .array(let t, let s): return (t, s, true)
        default: return nil
        }
    }

    /// A token array, token vector or token list op flattened.
    public var tokens: [String]? {
        switch resolved {
        case .array(_, .string(let a)): return a
        case .tokenVector(let a), .stringVector(let a): return a
        case .tokenListOp(let op), .stringListOp(let op): return op.flattened
        default: return nil
        }
    }

    /// Convenience constructors.
    public static func token(_ s: String) -> SdfValue { .scalar(.token, .string([s])) }
    public static func string(_ s: String) -> SdfValue { .scalar(.string, .string([s])) }
    public static func asset(_ s: String) -> SdfValue { .scalar(.asset, .string([s])) }
    public static func double(_ d: Double) -> SdfValue { .scalar(.double, .double([d])) }
    public static func float(_ f: Float) -> SdfValue { .scalar(.float, .float([f])) }
    public static func int(_ i: Int32) -> SdfValue { .scalar(.int, .int32([i])) }
    public static func bool(_ b: Bool) -> SdfValue { .scalar(.bool, .bool([b])) }
}
