/// Arrays: the per-version header, raw element data (one bounds check, then a bulk copy) and the
/// compressed integer (≥ 0.5.0) and floating-point (≥ 0.6.0, codes 'i' and 't') encodings.
extension CrateValueDecoder {
    /// Arrays shorter than this are always stored raw, even when flagged compressed.
    static let minCompressedCount = 16

    /// A cursor just past the element count of the array `rep` points at, and that count
    /// (checked against `maxArrayElements`). Before 0.5.0 a rank (always 1) precedes a 32-bit
    /// count; before 0.7.0 the count is 32-bit; since, 64-bit.
    func arrayHeader(_ rep: CrateValueRep) throws(USDParseError) -> (CrateCursor, Int) {
        guard rep.payload >= UInt64(CrateBootstrap.size), rep.payload < UInt64(view.count) else {
            throw USDParseError(.corrupt, "array value rep \(rep) points outside the value data")
        }
        var c = try CrateCursor(view, at: Int(rep.payload))
        let cap = limits.maxArrayElements
        let count: Int
        if !version.atLeast(0, 5) {
            _ = try c.u32()  // rank, always 1
            count = try c.count32("array element", cap: cap, capName: "maxArrayElements", minItemBytes: 0)
        } else if !version.atLeast(0, 7) {
            count = try c.count32("array element", cap: cap, capName: "maxArrayElements", minItemBytes: 0)
        } else {
            count = try c.count("array element", cap: cap, capName: "maxArrayElements", minItemBytes: 0)
        }
        return (c, count)
    }

    func decodeArray(_ rep: CrateValueRep, _ type: CrateType, _ valueType: SdfValueType) throws(USDParseError) -> SdfValue {
        var (c, count) = try arrayHeader(rep)
        if rep.isCompressed {
            let isInteger = type == .int || type == .uint || type == .int64 || type == .uint64
            let isFloat = type == .half || type == .float || type == .double
            if isInteger, version.atLeast(0, 5) {
                return .array(valueType, try compressedIntegerArray(&c, type, count: count))
            }
            if isFloat, version.atLeast(0, 6) {
                return .array(valueType, try compressedFloatArray(&c, type, valueType, count: count))
            }
            warn("compressed flag ignored on a \(valueType.rawValue)[] value (crate \(version))")
        }
        return .array(valueType, try rawStorage(type, valueType, at: c.offset, elements: count))
    }

    /// `elements` raw elements of `type` at `at`: one range check, one budget charge, one copy.
    func rawStorage(
        _ type: CrateType, _ valueType: SdfValueType, at: Int, elements: Int
    ) throws(USDParseError) -> SdfStorage {
        let what = "\(valueType.rawValue)[\(elements)]"
        let comps = try Checked.bytes(elements, valueType.components, what)
        let bytes = try Checked.bytes(comps, type.componentSize, what)
        guard view.contains(offset: at, length: bytes) else {
            throw USDParseError(
                .truncated, "\(what) needs \(bytes) bytes at offset \(at) past the end of the file", byteOffset: at)
        }
        switch valueType.storageKind {
        case .bool:
            try charge(comps, what)
            return .bool(try view.withCheckedBytes(at, bytes) { raw in raw.map { $0 != 0 } })
        case .uint8: return .uint8(try copyArray(at, comps, UInt8.self, what))
        case .int32: return .int32(try copyArray(at, comps, Int32.self, what))
        case .uint32: return .uint32(try copyArray(at, comps, UInt32.self, what))
        case .int64: return .int64(try copyArray(at, comps, Int64.self, what))
        case .uint64: return .uint64(try copyArray(at, comps, UInt64.self, what))
        case .half: return .half(try copyArray(at, comps, UInt16.self, what))
        case .float: return .float(try copyArray(at, comps, Float.self, what))
        case .double: return .double(try copyArray(at, comps, Double.self, what))
        case .string:
            try charge(try Checked.bytes(comps, MemoryLayout<String>.stride, what), what)
            let indexes = try copyArray(at, comps, UInt32.self, what)
            var out: [String] = []
            out.reserveCapacity(comps)
            if type == .token {
                for i in indexes { out.append(try token(i)) }
            } else {
                for i in indexes { out.append(try string(i)) }
            }
            return .string(out)
        }
    }

    /// Copies `count` little-endian values of `T` starting at `at` (range already checked).
    func copyArray<T: BitwiseCopyable>(
        _ at: Int, _ count: Int, _ type: T.Type, _ what: @autoclosure () -> String
    ) throws(USDParseError) -> [T] {
        let bytes = try Checked.bytes(count, MemoryLayout<T>.size, what())
        try charge(try Checked.bytes(count, MemoryLayout<T>.stride, what()), what())
        let out = try view.withCheckedBytes(at, bytes) { raw in
            [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                if bytes > 0, let dst = buffer.baseAddress, let src = raw.baseAddress {
                    UnsafeMutableRawPointer(dst).copyMemory(from: src, byteCount: bytes)
                    #if _endian(big)
                    Self.swapElements(UnsafeMutableRawPointer(dst), count: count, width: MemoryLayout<T>.size)
                    #endif
                }
                initialized = count
            }
        }
        // The elements now live in `out`; a file mapping need not keep the source pages resident.
        if bytes >= Self.deferredArrayBytes { view.discard(at, bytes) }
        return out
    }

    #if _endian(big)
    static func swapElements(_ p: UnsafeMutableRawPointer, count: Int, width: Int) {
        guard width > 1 else { return }
        let b = p.assumingMemoryBound(to: UInt8.self)
        for e in 0..<count {
            var lo = e * width, hi = lo + width - 1
            while lo < hi {
                b.swapAt(lo, hi)
                lo += 1
                hi -= 1
            }
        }
    }
    #endif

    // MARK: Compressed arrays

    private func compressedIntegerArray(
        _ c: inout CrateCursor, _ type: CrateType, count: Int
    ) throws(USDParseError) -> SdfStorage {
        if count < Self.minCompressedCount { return try rawStorage(type, type.valueType!, at: c.offset, elements: count) }
        let what = "compressed \(type)[\(count)]"
        switch type {
        case .int:
            let v = try c.compressedIntegers(count, as: Int32.self, what: what, budget: budget)
            try addLogical(count * 4)
            return .int32(v)
        case .uint:
            let v = try c.compressedIntegers(count, as: UInt32.self, what: what, budget: budget)
            try addLogical(count * 4)
            return .uint32(v)
        case .int64:
            let v = try c.compressedIntegers(count, as: Int64.self, what: what, budget: budget)
            try addLogical(count * 8)
            return .int64(v)
        default:
            let v = try c.compressedIntegers(count, as: UInt64.self, what: what, budget: budget)
            try addLogical(count * 8)
            return .uint64(v)
        }
    }

    private func compressedFloatArray(
        _ c: inout CrateCursor, _ type: CrateType, _ valueType: SdfValueType, count: Int
    ) throws(USDParseError) -> SdfStorage {
        if count < Self.minCompressedCount { return try rawStorage(type, valueType, at: c.offset, elements: count) }
        let what = "compressed \(valueType.rawValue)[\(count)]"
        let codeAt = c.offset
        let code = try c.u8()
        switch code {
        case UInt8(ascii: "i"):
            let ints = try c.compressedIntegers(count, as: Int32.self, what: what, budget: budget)
            try charge(count * type.componentSize, what)
            switch type {
            case .half: return .half(ints.map { Half.fromFloat(Float($0)) })
            case .float: return .float(ints.map { Float($0) })
            default: return .double(ints.map { Double($0) })
            }
        case UInt8(ascii: "t"):
            let lutSize = try c.count32(
                "lookup table entry", cap: limits.maxArrayElements, capName: "maxArrayElements",
                minItemBytes: type.componentSize)
            let lut = try rawStorage(type, valueType, at: c.offset, elements: lutSize)
            try c.skip(lutSize * type.componentSize)
            let indexes = try c.compressedIntegers(count, as: UInt32.self, what: what, budget: budget)
            for (k, i) in indexes.enumerated() where Int(i) >= lutSize {
                throw USDParseError(
                    .corrupt, "\(what): element \(k) uses lookup entry \(i) of \(lutSize)", byteOffset: codeAt)
            }
            try charge(count * type.componentSize, what)
            switch lut {
            case .half(let table): return .half(indexes.map { table[Int($0)] })
            case .float(let table): return .float(indexes.map { table[Int($0)] })
            case .double(let table): return .double(indexes.map { table[Int($0)] })
            default: throw USDParseError(.corrupt, "\(what): lookup table of the wrong kind", byteOffset: codeAt)
            }
        default:
            throw USDParseError(.corrupt, "\(what): unknown compression code \(code)", byteOffset: codeAt)
        }
    }
}
