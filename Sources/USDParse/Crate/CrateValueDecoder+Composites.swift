/// Composite values: dictionaries, list ops, vectors, references/payloads, variant selections,
/// time samples, relocates and embedded ("value in stream") values. Every count is capped by
/// `limits.maxDictionaryEntries` (time samples: `maxTimeSamples`) and by the bytes its items need.
extension CrateValueDecoder {
    func decodeComposite(_ rep: CrateValueRep, _ type: CrateType, depth: Int) throws(USDParseError) -> SdfValue {
        var c = try CrateCursor(view, at: Int(rep.payload))
        switch type {
        case .dictionary:
            return .dictionary(try readDictionary(&c, depth: depth))
        case .tokenListOp:
            return .tokenListOp(try readListOp(&c, "token list op", 4) { (c) throws(USDParseError) in
                try self.token(c.u32())
            })
        case .stringListOp:
            return .stringListOp(try readListOp(&c, "string list op", 4) { (c) throws(USDParseError) in
                try self.string(c.u32())
            })
        case .pathListOp:
            return .pathListOp(try readListOp(&c, "path list op", 4) { (c) throws(USDParseError) in
                try self.path(c.u32())
            })
        case .referenceListOp:
            return .referenceListOp(try readListOp(&c, "reference list op", 32) { (c) throws(USDParseError) in
                try self.readReference(&c, depth: depth)
            })
        case .payloadListOp:
            return .payloadListOp(try readListOp(&c, "payload list op", 8) { (c) throws(USDParseError) in
                try self.readPayload(&c)
            })
        case .intListOp:
            return .intListOp(try readListOp(&c, "int list op", 4) { (c) throws(USDParseError) in Int64(try c.i32()) })
        case .int64ListOp:
            return .intListOp(try readListOp(&c, "int64 list op", 8) { (c) throws(USDParseError) in try c.i64() })
        case .uintListOp:
            return .uintListOp(try readListOp(&c, "uint list op", 4) { (c) throws(USDParseError) in UInt64(try c.u32()) })
        case .uint64ListOp:
            return .uintListOp(try readListOp(&c, "uint64 list op", 8) { (c) throws(USDParseError) in try c.u64() })
        case .pathVector:
            return .pathVector(try readItems(&c, "path vector", 4) { (c) throws(USDParseError) in try self.path(c.u32()) })
        case .tokenVector:
            return .tokenVector(try readItems(&c, "token vector", 4) { (c) throws(USDParseError) in
                try self.token(c.u32())
            })
        case .stringVector:
            return .stringVector(try readItems(&c, "string vector", 4) { (c) throws(USDParseError) in
                try self.string(c.u32())
            })
        case .doubleVector:
            return .doubleVector(try readDoubles(&c))
        case .layerOffsetVector:
            return .layerOffsetVector(try readItems(&c, "layer offset vector", 16) { (c) throws(USDParseError) in
                SdfLayerOffset(offset: try c.f64(), scale: try c.f64())
            })
        case .variantSelectionMap:
            let pairs = try readItems(&c, "variant selection", 8) { (c) throws(USDParseError) in
                (try self.string(c.u32()), try self.string(c.u32()))
            }
            return .variantSelection(Dictionary(pairs, uniquingKeysWith: { _, last in last }))
        case .relocates:
            let pairs = try readItems(&c, "relocate", 8) { (c) throws(USDParseError) in
                (try self.path(c.u32()), try self.path(c.u32()))
            }
            return .relocates(Dictionary(pairs, uniquingKeysWith: { _, last in last }))
        case .payload:
            return .payload(try readPayload(&c))
        case .timeSamples:
            return .timeSamples(try readTimeSamples(Int(rep.payload), depth: depth))
        case .value, .unregisteredValue:
            return try readEmbeddedValue(&c, depth: depth)
        default:
            throw corrupt("value rep \(rep): unexpected out-of-line \(type)", at: Int(rep.payload))
        }
    }

    // MARK: Building blocks

    /// `u64 count`, then `count` items read by `item` (each at least `minItemBytes` bytes).
    func readItems<T>(
        _ c: inout CrateCursor, _ what: String, _ minItemBytes: Int,
        _ item: (inout CrateCursor) throws(USDParseError) -> T
    ) throws(USDParseError) -> [T] {
        let n = try c.count(
            what, cap: limits.maxDictionaryEntries, capName: "maxDictionaryEntries", minItemBytes: minItemBytes)
        try charge(n * MemoryLayout<T>.stride, what)
        var out: [T] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try item(&c)) }
        return out
    }

    /// `u64 count`, then `count` f64 (a DoubleVector).
    func readDoubles(_ c: inout CrateCursor) throws(USDParseError) -> [Double] {
        let n = try c.count(
            "double vector", cap: limits.maxDictionaryEntries, capName: "maxDictionaryEntries", minItemBytes: 8)
        let values = try copyArray(c.offset, n, Double.self, "double vector")
        try c.skip(n * 8)
        return values
    }

    /// A list op: a header byte, then the present item lists in storage order explicit, added,
    /// prepended, appended, deleted, ordered.
    func readListOp<T>(
        _ c: inout CrateCursor, _ what: String, _ minItemBytes: Int,
        _ item: (inout CrateCursor) throws(USDParseError) -> T
    ) throws(USDParseError) -> SdfListOp<T> {
        let header = try c.u8()
        var op = SdfListOp<T>()
        op.isExplicit = header & 0x01 != 0
        if header & 0x02 != 0 { op.explicitItems = try readItems(&c, what, minItemBytes, item) }
        if header & 0x04 != 0 { op.addedItems = try readItems(&c, what, minItemBytes, item) }
        if header & 0x20 != 0 { op.prependedItems = try readItems(&c, what, minItemBytes, item) }
        if header & 0x40 != 0 { op.appendedItems = try readItems(&c, what, minItemBytes, item) }
        if header & 0x08 != 0 { op.deletedItems = try readItems(&c, what, minItemBytes, item) }
        if header & 0x10 != 0 { op.orderedItems = try readItems(&c, what, minItemBytes, item) }
        return op
    }

    /// `u32 asset (string index), u32 prim path, f64 offset, f64 scale`, then a dictionary.
    func readReference(_ c: inout CrateCursor, depth: Int) throws(USDParseError) -> SdfReference {
        let asset = try string(c.u32())
        let prim = try path(c.u32())
        let offset = SdfLayerOffset(offset: try c.f64(), scale: try c.f64())
        let customData = try readDictionary(&c, depth: depth + 1)
        return SdfReference(assetPath: asset, primPath: prim, layerOffset: offset, customData: customData)
    }

    /// `u32 asset, u32 prim path`, and from 0.8.0 a layer offset.
    func readPayload(_ c: inout CrateCursor) throws(USDParseError) -> SdfPayload {
        let asset = try string(c.u32())
        let prim = try path(c.u32())
        var offset = SdfLayerOffset.identity
        if version.atLeast(0, 8) { offset = SdfLayerOffset(offset: try c.f64(), scale: try c.f64()) }
        return SdfPayload(assetPath: asset, primPath: prim, layerOffset: offset)
    }

    /// `u64 count`, then per entry a u32 key (string index) and an embedded value.
    func readDictionary(_ c: inout CrateCursor, depth: Int) throws(USDParseError) -> [String: SdfValue] {
        guard depth <= limits.maxValueDepth else {
            throw USDParseError(.limitExceeded, "value nesting exceeds limits.maxValueDepth (\(limits.maxValueDepth))")
        }
        let n = try c.count(
            "dictionary entry", cap: limits.maxDictionaryEntries, capName: "maxDictionaryEntries", minItemBytes: 20)
        try charge(n * 64, "dictionary")
        var out: [String: SdfValue] = [:]
        out.reserveCapacity(n)
        for _ in 0..<n {
            let key = try string(c.u32())
            out[key] = try readEmbeddedValue(&c, depth: depth)
        }
        return out
    }

    /// An embedded value: `i64 jump` relative to its own position (≥ 8), nested data, then the
    /// value's rep at `position + jump`; reading continues after that rep.
    func readEmbeddedValue(_ c: inout CrateCursor, depth: Int) throws(USDParseError) -> SdfValue {
        let at = c.offset
        let jump = try c.i64()
        guard jump >= 8, jump <= Int64(c.end - at - 8) else {
            throw corrupt("embedded value jump \(jump) at offset \(at) is invalid", at: at)
        }
        let repAt = at + Int(jump)
        let rep = try view.u64(repAt)
        let value = try decode(CrateValueRep(rep), depth: depth + 1)
        try c.seek(repAt + 8)
        return value
    }

    /// Time samples at `p0`: `i64 jump1`, the times rep at `p0 + jump1` (a DoubleVector, or a double
    /// array), `i64 jump2` at `p1 = p0 + jump1 + 8`, then at `p1 + jump2` a u64 count and one rep per
    /// time. Requires as many values as times and no NaN times; unsorted times are sorted (stable).
    func readTimeSamples(_ p0: Int, depth: Int) throws(USDParseError) -> SdfTimeSamples {
        var c = try CrateCursor(view, at: p0)
        let times = try readSampleTimes(&c, depth: depth)
        let p1 = c.offset
        let jump2 = try c.i64()
        guard jump2 >= 8, jump2 <= Int64(c.end - p1) else {
            throw corrupt("time samples value jump \(jump2) at offset \(p1) is invalid", at: p1)
        }
        try c.seek(p1 + Int(jump2))
        let n = try c.count(
            "time sample", cap: limits.maxTimeSamples, capName: "maxTimeSamples", minItemBytes: 8)
        guard n == times.count else {
            throw corrupt("time samples have \(times.count) times but \(n) values", at: p1)
        }
        try charge(n * MemoryLayout<SdfValue>.stride, "time samples")
        var values: [SdfValue] = []
        values.reserveCapacity(n)
        for _ in 0..<n { values.append(try decode(CrateValueRep(try c.u64()), depth: depth + 1)) }
        if times.contains(where: { $0.isNaN }) { throw corrupt("time samples contain a NaN time", at: p0) }
        if zip(times, times.dropFirst()).contains(where: { $0 > $1 }) {
            warn("\(fieldContext): time samples were not in ascending order and were sorted")
            let order = times.indices.sorted { times[$0] < times[$1] || (times[$0] == times[$1] && $0 < $1) }
            return SdfTimeSamples(times: order.map { times[$0] }, values: order.map { values[$0] })
        }
        return SdfTimeSamples(times: times, values: values)
    }

    private func readSampleTimes(_ c: inout CrateCursor, depth: Int) throws(USDParseError) -> [Double] {
        let p0 = c.offset
        let jump1 = try c.i64()
        guard jump1 >= 8, jump1 <= Int64(c.end - p0 - 8) else {
            throw corrupt("time samples times jump \(jump1) at offset \(p0) is invalid", at: p0)
        }
        let repAt = p0 + Int(jump1)
        let rep = CrateValueRep(try view.u64(repAt))
        try c.seek(repAt + 8)
        switch try decode(rep, depth: depth + 1) {
        case .doubleVector(let t): return t
        case .array(.double, .double(let t)): return t
        default: throw corrupt("time samples times rep \(rep) is not a double vector", at: repAt)
        }
    }
}
