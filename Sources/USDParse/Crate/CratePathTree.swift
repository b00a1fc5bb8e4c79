/// Rebuilds the PATHS table (version ≥ 0.4.0) from its three parallel arrays describing the path
/// tree in depth-first pre-order: the table slot of each entry, its element token (negative =
/// property name) and its jump (−2 leaf, −1 child only, 0 sibling only, > 0 child and sibling at
/// `i + jump`). The walk is iterative, visits every entry exactly once and never revisits one, so
/// crafted jumps cannot make it loop or fan out. Slots never assigned stay `SdfPath.empty`.
///
/// Each entry becomes one path node on its parent's node, so the work and the memory are linear in
/// the number of entries whatever the depth; the budget is charged per node (its element bytes and
/// `SdfPathNode.chargedBytes`), never per spelled path.
enum CratePathTree {
    private typealias Kind = SdfPathNode.Kind

    /// - Throws: `USD_CORRUPT` for any out-of-range slot, token or jump, a slot assigned twice, an
    ///   entry reached twice or never, an invalid element name, or an element that cannot follow its
    ///   parent (see `elementKind`); `USD_LIMIT_EXCEEDED` when the element names of the entries add
    ///   up to more than `maxPathElementBytes` bytes; `USD_MEMORY_BUDGET_EXCEEDED`.
    static func build(
        pathIndexes: [UInt32], elementTokens: [Int32], jumps: [Int32], numPaths: Int, tokens: [String],
        budget: MemoryBudget, maxPathElementBytes: Int = ParseLimits.default.maxPathElementBytes
    ) throws(USDParseError) -> [SdfPath] {
        let n = pathIndexes.count
        precondition(elementTokens.count == n && jumps.count == n)
        var table = [SdfPath](repeating: .empty, count: numPaths)
        guard n > 0 else { return table }
        var visited = [Bool](repeating: false, count: n)
        var visitedCount = 0
        var elementBytes = 0
        var stack: [(entry: Int, parent: SdfPath, parentKind: Kind)] = [(0, .empty, .root)]

        while let top = stack.popLast() {
            var i = top.entry
            var parent = top.parent
            var parentKind = top.parentKind
            while true {
                guard i < n else { throw corrupt("path entry \(i) is out of range (\(n) entries)") }
                guard !visited[i] else { throw corrupt("path entry \(i) is reached twice") }
                visited[i] = true
                visitedCount += 1

                let slot = Int(pathIndexes[i])
                guard slot < numPaths else {
                    throw corrupt("path entry \(i) targets slot \(slot) but there are \(numPaths) paths")
                }
                guard table[slot].isEmpty else { throw corrupt("path slot \(slot) is assigned twice") }
                let t = elementTokens[i]
                guard t != Int32.min else { throw corrupt("path entry \(i) has element token INT32_MIN") }
                let tokenIndex = Int(t.magnitude)
                guard tokenIndex < tokens.count else {
                    throw corrupt("path entry \(i) refers to token \(tokenIndex) but there are \(tokens.count) tokens")
                }

                let path: SdfPath
                let kind: Kind
                if i == 0 {
                    path = .root
                    kind = .root
                } else {
                    let name = tokens[tokenIndex]
                    // Linear in the entries: each element is charged once, however deep it sits.
                    elementBytes += name.utf8.count
                    guard elementBytes <= maxPathElementBytes else {
                        throw USDParseError(
                            .limitExceeded,
                            "path element names exceed maxPathElementBytes (\(maxPathElementBytes)) at path entry \(i)")
                    }
                    try budget.charge(SdfPathNode.chargedBytes + name.utf8.count, "path nodes")
                    kind = try elementKind(name, isProperty: t < 0, under: parentKind, parent: parent, entry: i)
                    path = parent.appending(name, kind)
                }
                table[slot] = path

                let j = Int(jumps[i])
                guard j >= -2 else { throw corrupt("path entry \(i) has invalid jump \(j)") }
                let hasChild = j > 0 || j == -1
                let hasSibling = j >= 0
                if i == 0, hasSibling { throw corrupt("the root path entry has a sibling") }
                if hasChild, hasSibling {
                    guard j < n - i else { throw corrupt("path entry \(i) jumps to \(i + j) past \(n) entries") }
                    stack.append((i + j, parent, parentKind))
                }
                if hasChild {
                    parent = path
                    parentKind = kind
                    i += 1
                } else if hasSibling {
                    i += 1
                } else {
                    break
                }
            }
        }
        guard visitedCount == n else { throw corrupt("\(n - visitedCount) path entries are never reached") }
        return table
    }

    /// Classifies element `name` and checks it may follow a parent of kind `parent`:
    /// prim names under the root, prims and variant selections; variant selections `{set=sel}`
    /// under prims and variant selections; properties under prims and variant selections (and
    /// targets, for relational attributes); targets `[path]` under properties. Prim and property
    /// names must be non-empty and free of the path punctuation `/ . [ ] { }` and NUL (namespaced
    /// property names use `:`).
    private static func elementKind(
        _ name: String, isProperty: Bool, under parentKind: Kind, parent: SdfPath, entry: Int
    ) throws(USDParseError) -> Kind {
        let bytes = name.utf8
        guard let first = bytes.first else { throw corrupt("path entry \(entry) has an empty name") }
        let kind: Kind
        let allowed: Bool
        if isProperty {
            kind = .property
            allowed = parentKind == .prim || parentKind == .variant || parentKind == .target
        } else if first == UInt8(ascii: "{") {
            guard bytes.last == UInt8(ascii: "}"), bytes.contains(UInt8(ascii: "=")) else {
                throw corrupt("path entry \(entry) has a malformed variant selection \(name)")
            }
            kind = .variant
            allowed = parentKind == .prim || parentKind == .variant
        } else if first == UInt8(ascii: "[") {
            guard bytes.last == UInt8(ascii: "]") else {
                throw corrupt("path entry \(entry) has a malformed target \(name)")
            }
            kind = .target
            allowed = parentKind == .property
        } else {
            kind = .prim
            allowed = parentKind == .root || parentKind == .prim || parentKind == .variant
        }
        guard allowed else { throw corrupt("element \(name) cannot follow path \(parent)") }
        if kind == .prim || kind == .property {
            for b in bytes {
                switch b {
                case 0, UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"),
                    UInt8(ascii: "{"), UInt8(ascii: "}"):
                    throw corrupt("path entry \(entry) has an invalid name \(name)")
                default: continue
                }
            }
        }
        return kind
    }

    private static func corrupt(_ message: String) -> USDParseError { USDParseError(.corrupt, message) }
}

extension CrateTables {
    /// PATHS: `u64 numPaths`, `u64 numEncodedPaths`, then three compressed int blocks (slots,
    /// element tokens, jumps), rebuilt by `CratePathTree`.
    mutating func readPaths(
        _ view: ByteView, _ section: CrateSection, limits: ParseLimits, budget: MemoryBudget
    ) throws(USDParseError) {
        var c = try CrateCursor(view, offset: section.start, end: section.end)
        let numPaths = try c.count("path", cap: limits.maxPaths, capName: "maxPaths", minItemBytes: 0)
        let at = c.offset
        let rawEncoded = try c.u64()
        guard rawEncoded <= UInt64(numPaths) else {
            throw USDParseError(
                .corrupt, "\(rawEncoded) encoded paths exceed the \(numPaths)-entry path table", byteOffset: at)
        }
        let n = Int(rawEncoded)
        // Only the empty path is left unencoded by writers, so the table has at most one slot more
        // than the tree. Allow some slack, but do not let a small section claim a huge table.
        guard numPaths - n <= max(64, n) else {
            throw USDParseError(
                .corrupt, "path table of \(numPaths) slots holds only \(n) encoded paths", byteOffset: at)
        }
        let slots = try c.compressedIntegers(n, as: UInt32.self, what: "PATHS path indexes", budget: budget)
        let elements = try c.compressedIntegers(n, as: Int32.self, what: "PATHS element tokens", budget: budget)
        let jumps = try c.compressedIntegers(n, as: Int32.self, what: "PATHS jumps", budget: budget)
        try budget.charge(try Checked.bytes(numPaths, MemoryLayout<SdfPath>.stride + 8, "path table"), "path table")
        paths = try CratePathTree.build(
            pathIndexes: slots, elementTokens: elements, jumps: jumps, numPaths: numPaths, tokens: tokens,
            budget: budget, maxPathElementBytes: limits.maxPathElementBytes)
    }
}
