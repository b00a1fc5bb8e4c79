/// The structural tables of a crate file (version ≥ 0.4.0), read in file order. Every count is
/// checked against its `ParseLimits` cap and against the bytes that could encode it before anything
/// is allocated, and every cross-table index is validated once here, so later stages can index
/// these arrays directly.
struct CrateTables: Sendable {
    static let invalidIndex: UInt32 = 0xFFFF_FFFF

    var tokens: [String] = []
    /// STRINGS resolved through TOKENS.
    var strings: [String] = []
    /// Per field: the token index of its name (validated `< tokens.count`).
    var fieldNameTokens: [UInt32] = []
    /// Per field: its ValueRep.
    var fieldReps: [UInt64] = []
    /// Runs of field indexes, each terminated by `invalidIndex` (validated).
    var fieldSets: [UInt32] = []
    var paths: [SdfPath] = []
    var specPathIndexes: [UInt32] = []
    var specFieldSetIndexes: [UInt32] = []
    var specTypes: [UInt32] = []

    // MARK: TOKENS

    /// `u64 numTokens, u64 uncompressedSize, u64 compressedSize`, then a TfFastCompression stream of
    /// `numTokens` NUL-terminated UTF-8 strings. Invalid UTF-8 is repaired (U+FFFD) with a warning.
    mutating func readTokens(
        _ view: ByteView, _ section: CrateSection, limits: ParseLimits, budget: MemoryBudget, warnings: inout [String]
    ) throws(USDParseError) {
        var c = try CrateCursor(view, offset: section.start, end: section.end)
        let n = try c.count("token", cap: limits.maxTokens, capName: "maxTokens", minItemBytes: 0)
        let sizeAt = c.offset
        let rawSize = try c.u64()
        let compressedSize = try c.byteLength("TOKENS compressed data")
        guard rawSize <= UInt64(Int.max), rawSize >= UInt64(n) else {
            throw USDParseError(
                .corrupt, "TOKENS uncompressed size \(rawSize) cannot hold \(n) NUL-terminated tokens", byteOffset: sizeAt)
        }
        let size = Int(rawSize)
        guard let producible = FastCompression.maxOutput(forCompressed: compressedSize), size <= producible else {
            throw USDParseError(
                .decompressionFailed,
                "TOKENS uncompressed size \(size) cannot come from \(compressedSize) compressed bytes", byteOffset: sizeAt)
        }
        try budget.charge(try Checked.bytes(n, MemoryLayout<String>.stride, "token table"), "token table")
        let text = try FastCompression.decompress(
            view, offset: c.offset, length: compressedSize, capacity: size, exact: true, what: "TOKENS", budget: budget)
        var out: [String] = []
        out.reserveCapacity(n)
        var invalidUTF8 = 0
        var overlong: Int?  // length of a token over limits.maxStringLength
        var consumed = 0  // bytes up to and including the last terminator used
        text.withUnsafeBufferPointer { buf in
            var i = 0
            while i < buf.count, out.count < n {
                if buf[i] == 0 {
                    let bytes = UnsafeBufferPointer(rebasing: buf[consumed..<i])
                    if bytes.count > limits.maxStringLength {
                        overlong = bytes.count
                        return
                    }
                    if let s = String(validating: bytes, as: UTF8.self) {
                        out.append(s)
                    } else {
                        invalidUTF8 += 1
                        out.append(String(decoding: bytes, as: UTF8.self))
                    }
                    consumed = i + 1
                }
                i += 1
            }
        }
        if let overlong {
            throw USDParseError(
                .limitExceeded, "token of \(overlong) bytes exceeds limits.maxStringLength (\(limits.maxStringLength))",
                byteOffset: section.start)
        }
        guard out.count == n, consumed == text.count else {
            throw USDParseError(
                .corrupt,
                "TOKENS declares \(n) tokens in \(text.count) bytes but holds \(out.count) tokens in \(consumed) bytes",
                byteOffset: section.start)
        }
        if invalidUTF8 > 0 { warnings.append("\(invalidUTF8) tokens are not valid UTF-8 and were repaired") }
        tokens = out
    }

    // MARK: STRINGS

    /// `u64 numStrings`, then that many u32 token indexes.
    mutating func readStrings(
        _ view: ByteView, _ section: CrateSection?, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) {
        guard let section else { return }
        var c = try CrateCursor(view, offset: section.start, end: section.end)
        let n = try c.count("string", cap: limits.maxStrings, capName: "maxStrings", minItemBytes: 4)
        try budget.charge(try Checked.bytes(n, MemoryLayout<String>.stride, "string table"), "string table")
        let indexes = try c.view.withCheckedBytes(c.offset, n * 4) { raw in
            (0..<n).map { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
        }
        var out: [String] = []
        out.reserveCapacity(n)
        for (i, t) in indexes.enumerated() {
            guard Int(t) < tokens.count else {
                throw USDParseError(
                    .corrupt, "string \(i) refers to token \(t) but there are \(tokens.count) tokens",
                    byteOffset: c.offset + 4 * i)
            }
            out.append(tokens[Int(t)])
        }
        strings = out
    }

    // MARK: FIELDS

    /// `u64 numFields`, compressed ints (name token indexes), `u64 repsCompressedSize`, then a
    /// TfFastCompression stream of exactly `numFields × 8` bytes of ValueReps.
    mutating func readFields(
        _ view: ByteView, _ section: CrateSection, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) {
        var c = try CrateCursor(view, offset: section.start, end: section.end)
        let n = try c.count("field", cap: limits.maxFields, capName: "maxFields", minItemBytes: 0)
        let names = try c.compressedIntegers(n, as: UInt32.self, what: "FIELDS name tokens", budget: budget)
        for (i, t) in names.enumerated() where Int(t) >= tokens.count {
            throw USDParseError(
                .corrupt, "field \(i) name refers to token \(t) but there are \(tokens.count) tokens",
                byteOffset: section.start)
        }
        let repsSize = try c.byteLength("FIELDS value reps")
        let repBytes = try FastCompression.decompress(
            view, offset: c.offset, length: repsSize, capacity: try Checked.bytes(n, 8, "FIELDS value reps"),
            exact: true, what: "FIELDS value reps", budget: budget)
        try budget.charge(n * 8, "FIELDS value reps")
        fieldReps = repBytes.withUnsafeBytes { raw in
            (0..<n).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
        }
        fieldNameTokens = names
    }

    // MARK: FIELDSETS

    /// `u64 numEntries`, compressed ints. Entries are field indexes or the run terminator; the last
    /// entry must be a terminator.
    mutating func readFieldSets(
        _ view: ByteView, _ section: CrateSection, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) {
        var c = try CrateCursor(view, offset: section.start, end: section.end)
        let n = try c.count("field set entry", cap: limits.maxFieldSets, capName: "maxFieldSets", minItemBytes: 0)
        let entries = try c.compressedIntegers(n, as: UInt32.self, what: "FIELDSETS", budget: budget)
        let numFields = fieldReps.count
        for (i, e) in entries.enumerated() where e != Self.invalidIndex && Int(e) >= numFields {
            throw USDParseError(
                .corrupt, "field set entry \(i) refers to field \(e) but there are \(numFields) fields",
                byteOffset: section.start)
        }
        if let last = entries.last, last != Self.invalidIndex {
            throw USDParseError(.corrupt, "the last field set entry is not a terminator", byteOffset: section.start)
        }
        fieldSets = entries
    }

    // MARK: SPECS

    /// `u64 numSpecs`, then three compressed int blocks: path indexes, field-set indexes, spec types.
    /// Validates each spec (path index in range and non-empty, field-set index at a run start,
    /// spec type 1…11) and rejects duplicate spec paths.
    mutating func readSpecs(
        _ view: ByteView, _ section: CrateSection, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) {
        var c = try CrateCursor(view, offset: section.start, end: section.end)
        let n = try c.count("spec", cap: limits.maxSpecs, capName: "maxSpecs", minItemBytes: 0)
        let pathIdx = try c.compressedIntegers(n, as: UInt32.self, what: "SPECS path indexes", budget: budget)
        let setIdx = try c.compressedIntegers(n, as: UInt32.self, what: "SPECS field set indexes", budget: budget)
        let types = try c.compressedIntegers(n, as: UInt32.self, what: "SPECS spec types", budget: budget)
        try budget.charge(try Checked.bytes(n, 16, "spec path set"), "spec path set")
        var seen = Set<SdfPath>(minimumCapacity: n)
        for i in 0..<n {
            let p = Int(pathIdx[i])
            guard p < paths.count, !paths[p].isEmpty else {
                throw USDParseError(
                    .corrupt, "spec \(i) has invalid path index \(p) (\(paths.count) paths)", byteOffset: section.start)
            }
            let fs = Int(setIdx[i])
            guard fs < fieldSets.count, fs == 0 || fieldSets[fs - 1] == Self.invalidIndex else {
                throw USDParseError(
                    .corrupt, "spec \(paths[p]) has field set index \(fs) that is not the start of a run",
                    byteOffset: section.start)
            }
            guard (1...11).contains(types[i]) else {
                throw USDParseError(
                    .corrupt, "spec \(paths[p]) has invalid spec type \(types[i])", byteOffset: section.start)
            }
            guard seen.insert(paths[p]).inserted else {
                throw USDParseError(.corrupt, "duplicate spec for path \(paths[p])", byteOffset: section.start)
            }
        }
        specPathIndexes = pathIdx
        specFieldSetIndexes = setIdx
        specTypes = types
    }
}
