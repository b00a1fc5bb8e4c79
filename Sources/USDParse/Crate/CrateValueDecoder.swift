/// Decodes ValueReps into `SdfValue`s.
///
/// Guards: nesting depth is capped by `limits.maxValueDepth`; a value that is already being decoded
/// further up the stack (a self-containing dictionary or embedded value) is refused with
/// `USD_CORRUPT`; decoded out-of-line values are cached by rep (files deduplicate aggressively), and
/// the logical size of every use — cached or not — is counted against the memory budget's limit so
/// that sharing cannot amplify downstream work without bound. Unsupported value kinds (splines,
/// array edits, unregistered-value list ops, unknown types) become `.unsupported(reason)` with a
/// layer warning instead of failing the file.
final class CrateValueDecoder {
    let view: ByteView
    let version: CrateVersion
    let tables: CrateTables
    let limits: ParseLimits
    let budget: MemoryBudget

    /// Distinct warnings, in order of first occurrence (capped at `maxWarnings`).
    private(set) var warnings: [String] = []
    private var warningSet: Set<String> = []
    private var suppressedWarnings = 0
    static let maxWarnings = 200

    private struct Cached {
        var value: SdfValue
        var logicalBytes: Int
    }
    private var cache: [UInt64: Cached] = [:]
    private var inProgress: Set<UInt64> = []
    /// Bytes of decoded data handed out, counting every reuse of a cached value.
    private(set) var logicalBytes = 0
    /// The spec and field being decoded, for warnings.
    private var currentPath = SdfPath.empty
    private var currentField = ""
    var fieldContext: String { "\(currentPath) field '\(currentField)'" }

    init(view: ByteView, version: CrateVersion, tables: CrateTables, limits: ParseLimits, budget: MemoryBudget) {
        self.view = view
        self.version = version
        self.tables = tables
        self.limits = limits
        self.budget = budget
    }

    /// Decodes the value of field `field` of the spec at `path` (both only name warnings).
    func decodeField(_ rep: UInt64, path: SdfPath, field: String) throws(USDParseError) -> SdfValue {
        currentPath = path
        currentField = field
        return try decode(CrateValueRep(rep), depth: 0)
    }

    /// The dispatcher: type checks, array / inline / out-of-line selection, caching.
    func decode(_ rep: CrateValueRep, depth: Int) throws(USDParseError) -> SdfValue {
        guard depth <= limits.maxValueDepth else {
            throw USDParseError(
                .limitExceeded, "value nesting exceeds limits.maxValueDepth (\(limits.maxValueDepth))")
        }
        guard let type = CrateType(rawValue: rep.typeByte) else {
            if rep.typeByte == 0 { throw corrupt("value rep \(rep) has the invalid type 0") }
            return unsupported("unknown value type \(rep.typeByte)")
        }
        if rep.isArrayEdit {
            return unsupported("array edits (\(type) elements, crate \(version)) are not supported")
        }
        if rep.isArray {
            guard let valueType = type.valueType else { throw corrupt("value rep \(rep): \(type) cannot be an array") }
            if rep.payload == 0 { return .array(valueType, Self.emptyStorage(valueType.storageKind)) }
            return try cached(rep, recursive: false) { () throws(USDParseError) in
                if let deferred = try deferredArray(rep, type, valueType) { return deferred }
                return try decodeArray(rep, type, valueType)
            }
        }
        if type.isAlwaysInlined || rep.isInlined {
            guard type.hasInlineForm else { throw corrupt("value rep \(rep): \(type) has no inline form") }
            return try decodeInline(type, rep.payload32)
        }
        switch type {
        case .spline: return unsupported("spline values are not supported")
        case .unregisteredValueListOp: return unsupported("unregistered-value list ops are not supported")
        default: break
        }
        try checkOffset(rep)
        return try cached(rep, recursive: type.isRecursive) { () throws(USDParseError) in
            if let valueType = type.valueType { return try decodeOutOfLineScalar(rep, type, valueType) }
            return try decodeComposite(rep, type, depth: depth)
        }
    }

    // MARK: Caching and accounting

    private func cached(
        _ rep: CrateValueRep, recursive: Bool, _ body: () throws(USDParseError) -> SdfValue
    ) throws(USDParseError) -> SdfValue {
        if let hit = cache[rep.raw] {
            try addLogical(hit.logicalBytes)
            return hit.value
        }
        if recursive {
            guard inProgress.insert(rep.raw).inserted else {
                throw corrupt("value rep \(rep) contains itself", at: Int(rep.payload))
            }
        }
        defer { if recursive { inProgress.remove(rep.raw) } }
        let before = logicalBytes
        let value = try body()
        cache[rep.raw] = Cached(value: value, logicalBytes: logicalBytes - before)
        return value
    }

    /// Charges `bytes` to the budget (before allocating) and to the logical total.
    func charge(_ bytes: Int, _ what: @autoclosure () -> String) throws(USDParseError) {
        try budget.charge(bytes, what())
        try addLogical(bytes)
    }

    func addLogical(_ bytes: Int) throws(USDParseError) {
        guard let sum = Checked.add(logicalBytes, bytes), sum <= budget.limit else {
            throw USDParseError(
                .memoryBudgetExceeded,
                "decoded values would total more than the memory budget (\(budget.limit) bytes) counting shared values")
        }
        logicalBytes = sum
    }

    // MARK: Diagnostics

    func warn(_ message: String) {
        guard !warningSet.contains(message) else { return }
        if warnings.count >= Self.maxWarnings {
            suppressedWarnings += 1
            return
        }
        warningSet.insert(message)
        warnings.append(message)
    }

    /// Warnings plus a count of suppressed ones.
    var allWarnings: [String] {
        suppressedWarnings == 0 ? warnings : warnings + ["\(suppressedWarnings) further value warnings suppressed"]
    }

    func unsupported(_ reason: String) -> SdfValue {
        warn("\(fieldContext): \(reason)")
        return .unsupported(reason)
    }

    func corrupt(_ message: String, at offset: Int? = nil) -> USDParseError {
        USDParseError(.corrupt, message, byteOffset: offset)
    }

    private func checkOffset(_ rep: CrateValueRep) throws(USDParseError) {
        guard rep.payload >= UInt64(CrateBootstrap.size) else {
            throw corrupt("value rep \(rep) points into the bootstrap header")
        }
        guard rep.payload < UInt64(view.count) else {
            throw USDParseError(.truncated, "value rep \(rep) points past the end of the file")
        }
    }

    // MARK: Table lookups

    @inline(__always) func token(_ index: UInt32) throws(USDParseError) -> String {
        guard Int(index) < tables.tokens.count else {
            throw corrupt("token index \(index) out of range (\(tables.tokens.count) tokens)")
        }
        return tables.tokens[Int(index)]
    }

    @inline(__always) func string(_ index: UInt32) throws(USDParseError) -> String {
        guard Int(index) < tables.strings.count else {
            throw corrupt("string index \(index) out of range (\(tables.strings.count) strings)")
        }
        return tables.strings[Int(index)]
    }

    @inline(__always) func path(_ index: UInt32) throws(USDParseError) -> SdfPath {
        guard Int(index) < tables.paths.count else {
            throw corrupt("path index \(index) out of range (\(tables.paths.count) paths)")
        }
        return tables.paths[Int(index)]
    }

    // MARK: Inline values

    /// Decodes a value packed into the low 32 payload bits.
    func decodeInline(_ type: CrateType, _ v: UInt32) throws(USDParseError) -> SdfValue {
        switch type {
        case .bool: return .scalar(.bool, .bool([v & 0xFF != 0]))
        case .uchar: return .scalar(.uchar, .uint8([UInt8(truncatingIfNeeded: v)]))
        case .int: return .scalar(.int, .int32([Int32(bitPattern: v)]))
        case .uint: return .scalar(.uint, .uint32([v]))
        case .int64: return .scalar(.int64, .int64([Int64(Int32(bitPattern: v))]))
        case .uint64: return .scalar(.uint64, .uint64([UInt64(v)]))
        case .half: return .scalar(.half, .half([UInt16(truncatingIfNeeded: v)]))
        case .float: return .scalar(.float, .float([Float(bitPattern: v)]))
        case .double: return .scalar(.double, .double([Double(Float(bitPattern: v))]))
        case .string: return .scalar(.string, .string([try string(v)]))
        case .token: return .scalar(.token, .string([try token(v)]))
        case .assetPath: return .scalar(.asset, .string([try token(v)]))
        case .vec2h:
            return .scalar(.half2, .half([UInt16(truncatingIfNeeded: v), UInt16(truncatingIfNeeded: v >> 16)]))
        case .matrix2d, .matrix3d, .matrix4d:
            let n = type == .matrix2d ? 2 : (type == .matrix3d ? 3 : 4)
            var m = [Double](repeating: 0, count: n * n)
            for i in 0..<n { m[i * n + i] = Double(Int8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
            return .scalar(type.valueType!, .double(m))
        case .dictionary: return .dictionary([:])
        case .specifier:
            guard let s = SdfSpecifier(rawValue: Int(v)) else { throw corrupt("invalid specifier \(v)") }
            return .specifier(s)
        case .permission:
            guard let p = SdfPermission(rawValue: Int(v)) else { throw corrupt("invalid permission \(v)") }
            return .permission(p)
        case .variability:
            guard v <= 2 else { throw corrupt("invalid variability \(v)") }
            return .variability(v == 0 ? .varying : .uniform)
        case .valueBlock: return .valueBlock
        case .animationBlock: return .animationBlock
        default:
            // Vectors: one signed byte per component.
            guard let vt = type.valueType, vt.components <= 4 else {
                throw corrupt("\(type) has no inline form")
            }
            let comps = (0..<vt.components).map { Int8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
            return .scalar(vt, Self.storage(fromSmall: comps, kind: vt.storageKind))
        }
    }

    static func storage(fromSmall comps: [Int8], kind: SdfStorage.Kind) -> SdfStorage {
        switch kind {
        case .double: return .double(comps.map { Double($0) })
        case .float: return .float(comps.map { Float($0) })
        case .half: return .half(comps.map { Half.fromFloat(Float($0)) })
        default: return .int32(comps.map { Int32($0) })
        }
    }

    static func emptyStorage(_ kind: SdfStorage.Kind) -> SdfStorage {
        switch kind {
        case .bool: return .bool([])
        case .uint8: return .uint8([])
        case .int32: return .int32([])
        case .uint32: return .uint32([])
        case .int64: return .int64([])
        case .uint64: return .uint64([])
        case .half: return .half([])
        case .float: return .float([])
        case .double: return .double([])
        case .string: return .string([])
        }
    }

    // MARK: Out-of-line scalars

    /// A fixed-size scalar stored raw at the payload offset (8-byte ints/doubles, vectors,
    /// matrices, quaternions, time codes, durations) or a path expression's u32 string index.
    private func decodeOutOfLineScalar(
        _ rep: CrateValueRep, _ type: CrateType, _ valueType: SdfValueType
    ) throws(USDParseError) -> SdfValue {
        let at = Int(rep.payload)
        if type == .pathExpression {
            return .scalar(.pathExpression, .string([try string(try view.u32(at))]))
        }
        return .scalar(valueType, try rawStorage(type, valueType, at: at, elements: 1))
    }
}
