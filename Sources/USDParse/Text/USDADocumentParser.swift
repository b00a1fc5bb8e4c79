/// The USDA parser proper: a token-level parser that builds an `SdfLayer` with the same specs and
/// field values a crate reader produces for the same content. Prim, variant-set and variant blocks
/// are tracked on an explicit scope stack and dictionaries and untyped lists on explicit stacks too
/// (nothing recurses with the input's nesting). Every nested construct (blocks, metadata,
/// dictionaries, tuples, lists) counts against `ParseLimits.maxTextNesting`, so hostile nesting
/// fails early with `USD_LIMIT_EXCEEDED`. Properties live in `USDADocumentParser+Properties.swift`,
/// values in `+Values.swift`, metadata in `+Metadata.swift`.
struct USDADocumentParser {
    var lexer: USDALexer
    /// The current (lookahead) token.
    var token: USDAToken = .eofToken
    let limits: ParseLimits
    let budget: MemoryBudget
    let identifier: String
    var layer: USDALayerBuilder
    /// Open blocks and brackets right now.
    var depth = 0

    init(buffer: UnsafeBufferPointer<UInt8>, identifier: String, limits: ParseLimits, budget: MemoryBudget) {
        lexer = USDALexer(buffer: buffer, layer: identifier, maxTokenLength: limits.maxStringLength)
        self.limits = limits
        self.budget = budget
        self.identifier = identifier
        layer = USDALayerBuilder(maxSpecs: max(1, limits.maxSpecs))
    }

    // MARK: Token helpers

    mutating func advance() throws(USDParseError) { token = try lexer.next() }

    func error(_ message: String, at t: USDAToken? = nil) -> USDParseError {
        lexer.syntaxError(message, at: (t ?? token).start)
    }

    /// "found 'xyz'" for messages.
    func describe(_ t: USDAToken) -> String {
        switch t.kind {
        case .eof: return "end of file"
        case .string: return "a string"
        case .asset: return "an asset path"
        case .path: return "a path"
        default:
            let end = min(t.end, t.start + 40)
            return "'" + lexer.text(t.start, end) + (end < t.end ? "…" : "") + "'"
        }
    }

    func isKeyword(_ word: StaticString) -> Bool {
        token.kind == .identifier && lexer.tokenIs(token, word)
    }

    func text(_ t: USDAToken) -> String { lexer.text(t.start, t.end) }

    mutating func expect(_ kind: USDATokenKind, _ what: @autoclosure () -> String) throws(USDParseError) {
        guard token.kind == kind else { throw error("expected \(what()), found \(describe(token))") }
        try advance()
    }

    mutating func expectIdentifier(_ what: @autoclosure () -> String) throws(USDParseError) -> String {
        guard token.kind == .identifier else { throw error("expected \(what()), found \(describe(token))") }
        let s = text(token)
        try advance()
        return s
    }

    mutating func expectString(_ what: @autoclosure () -> String) throws(USDParseError) -> String {
        guard token.kind == .string else { throw error("expected \(what()), found \(describe(token))") }
        let s = lexer.stringValue(token)
        try advance()
        return s
    }

    /// Enters one nesting level (a block or bracket starting at `t`).
    mutating func enter(_ t: USDAToken) throws(USDParseError) {
        guard depth < limits.maxTextNesting else {
            throw lexer.limitError("nesting deeper than maxTextNesting (\(limits.maxTextNesting))", at: t.start)
        }
        depth += 1
    }

    mutating func leave() { depth -= 1 }

    /// The token after the current one, without consuming anything.
    func peekNext() throws(USDParseError) -> USDAToken {
        var copy = lexer
        return try copy.next()
    }

    /// Current token is `add`, `append`, `prepend`, `delete` or `reorder`.
    var listOpKeyword: USDAListOpKind? {
        guard token.kind == .identifier else { return nil }
        if lexer.tokenIs(token, "prepend") { return .prepended }
        if lexer.tokenIs(token, "append") { return .appended }
        if lexer.tokenIs(token, "add") { return .added }
        if lexer.tokenIs(token, "delete") { return .deleted }
        if lexer.tokenIs(token, "reorder") { return .ordered }
        return nil
    }

    // MARK: Names

    /// `[A-Za-z_][A-Za-z0-9_]*` (bytes ≥ 0x80 accepted as Unicode identifier characters).
    static func isIdentifier(_ s: String) -> Bool {
        var first = true
        for c in s.utf8 {
            if first ? !USDALexer.isIdentifierStart(c) : !USDALexer.isIdentifierContinue(c) { return false }
            first = false
        }
        return !first
    }

    /// Variant names may also start with a digit and contain `-` and `|`.
    static func isVariantName(_ s: String) -> Bool {
        guard !s.isEmpty else { return false }
        return s.utf8.allSatisfy { USDALexer.isIdentifierContinue($0) || $0 == 0x2D || $0 == 0x7C }
    }

    // MARK: Layer

    mutating func parseLayer() throws(USDParseError) -> SdfLayer {
        let buffer = lexer.buffer
        var i = 0
        while i < buffer.count {
            if buffer[i] == 0 { throw lexer.syntaxError("NUL byte in USDA text", at: i) }
            i += 1
        }
        try advance()  // the `#usda 1.0` header line is a comment to the lexer
        if token.kind == .lparen {
            var fields: [String: SdfValue] = [:]
            try parseMetadataBlock(.layer, owner: .root, into: &fields)
            layer.merge(.root, fields)
        }
        try parseBlocks()
        return layer.build(identifier: identifier)
    }

    /// An open block: the layer root, a prim, a variant set or a variant.
    struct Scope {
        enum Kind { case root, prim, variantSet, variant }
        var kind: Kind
        /// The spec path (root, prim, variant) or, for a variant set, the owning prim/variant path.
        var path: SdfPath
        var setName = ""
        var primChildren: [String] = []
        var properties: [String] = []
        var propertyNames: Set<String> = []
        /// Prim/variant: `variantSetChildren` so far. Variant set: the variants of this block.
        var variantSetChildren: [String] = []
        var variants: [String] = []
        var variantNames: Set<String> = []
    }

    /// Budget estimate of one spec beyond its path (spec, field table, small values).
    static let specCost = 256

    /// Charges `bytes` to the memory budget; errors carry this layer's position.
    func charge(_ bytes: Int, _ what: @autoclosure () -> String, at t: USDAToken) throws(USDParseError) {
        do {
            try budget.charge(bytes, what())
        } catch {
            let (line, column) = lexer.lineColumn(at: t.start)
            var e = error.adding(format: .usda, byteOffset: t.start, layer: identifier)
            e.line = line
            e.column = column
            throw e
        }
    }

    /// The statement loop. Nested blocks are pushed on `scopes` instead of recursing.
    private mutating func parseBlocks() throws(USDParseError) {
        var scopes = [Scope(kind: .root, path: .root)]
        while !scopes.isEmpty {
            if token.kind == .semicolon {
                try advance()
                continue
            }
            // Copy only the scalars of the innermost scope: holding the whole scope would make every
            // append to its child lists copy them (quadratic on wide prims).
            let last = scopes.count - 1
            let top = (kind: scopes[last].kind, path: scopes[last].path, setName: scopes[last].setName)
            switch top.kind {
            case .root:
                if token.kind == .eof {
                    let children = scopes[0].primChildren
                    if !children.isEmpty { layer.set(.root, "primChildren", .tokenVector(children)) }
                    return
                }
                if isKeyword("def") || isKeyword("over") || isKeyword("class") {
                    let (path, name, sets) = try parsePrimHeader(parent: .root)
                    scopes[last].primChildren.append(name)
                    scopes.append(Scope(kind: .prim, path: path, variantSetChildren: sets))
                } else if isKeyword("reorder") {
                    try parseReorder(owner: .root, allowed: "rootPrims")
                } else {
                    throw error("expected 'def', 'over' or 'class', found \(describe(token))")
                }
            case .prim, .variant:
                if token.kind == .rbrace {
                    try advance()
                    leave()
                    let done = scopes.removeLast()
                    if !done.primChildren.isEmpty { layer.set(done.path, "primChildren", .tokenVector(done.primChildren)) }
                    if !done.properties.isEmpty { layer.set(done.path, "properties", .tokenVector(done.properties)) }
                    if !done.variantSetChildren.isEmpty {
                        layer.set(done.path, "variantSetChildren", .tokenVector(done.variantSetChildren))
                    }
                } else if token.kind == .eof {
                    throw error("unterminated block of \(top.path): missing '}'")
                } else if isKeyword("def") || isKeyword("over") || isKeyword("class") {
                    let (path, name, sets) = try parsePrimHeader(parent: top.path)
                    scopes[last].primChildren.append(name)
                    scopes.append(Scope(kind: .prim, path: path, variantSetChildren: sets))
                } else if isKeyword("variantSet") {
                    let (setName, created) = try parseVariantSetHeader(owner: top.path)
                    // A set is listed once, when its spec is first created.
                    if created { scopes[last].variantSetChildren.append(setName) }
                    scopes.append(Scope(kind: .variantSet, path: top.path, setName: setName))
                } else if isKeyword("reorder"), try isReorderStatement() {
                    try parseReorder(owner: top.path, allowed: "nameChildren|properties")
                } else {
                    let name = try parseProperty(owner: top.path)
                    if scopes[last].propertyNames.insert(name).inserted {
                        scopes[last].properties.append(name)
                    }
                }
            case .variantSet:
                if token.kind == .rbrace {
                    try advance()
                    leave()
                    let done = scopes.removeLast()
                    // Each block replaces `variantChildren` with its own variants.
                    if !done.variants.isEmpty {
                        let setPath = done.path.appendingVariantSelection(set: done.setName, variant: "")
                        layer.set(setPath, "variantChildren", .tokenVector(done.variants))
                    }
                } else if token.kind == .string {
                    let (path, name, sets) = try parseVariantHeader(owner: top.path, set: top.setName)
                    if scopes[last].variantNames.insert(name).inserted {
                        scopes[last].variants.append(name)
                    }
                    scopes.append(Scope(kind: .variant, path: path, variantSetChildren: sets))
                } else if token.kind == .eof {
                    throw error("unterminated variantSet \"\(top.setName)\": missing '}'")
                } else {
                    throw error("expected a variant name string or '}', found \(describe(token))")
                }
            }
        }
    }

    /// `def|over|class [Type] "name" [( metadata )] {` — creates the prim spec and enters its block.
    /// Returns the path, the name and the `variantSetChildren` its metadata declared.
    private mutating func parsePrimHeader(parent: SdfPath) throws(USDParseError) -> (SdfPath, String, [String]) {
        let start = token
        let specifier: SdfSpecifier = isKeyword("def") ? .def : isKeyword("over") ? .over : .class
        try advance()
        var typeName: String?
        if token.kind == .identifier {
            var name = text(token)
            try advance()
            while token.kind == .dot {
                try advance()
                name += "." + (try expectIdentifier("a type name after '.'"))
            }
            typeName = name
        }
        let nameToken = token
        let name = try expectString("a quoted prim name")
        guard Self.isIdentifier(name) else { throw error("invalid prim name \"\(name)\"", at: nameToken) }
        let path = parent.appendingChild(name)
        guard !layer.exists(path) else { throw error("duplicate prim \(path)", at: nameToken) }
        try charge(Self.specCost + path.utf8Count, "USDA prim spec", at: nameToken)
        var fields: [String: SdfValue] = ["specifier": .specifier(specifier)]
        if let typeName { fields["typeName"] = .token(typeName) }
        if token.kind == .lparen { try parseMetadataBlock(.prim, owner: path, into: &fields) }
        guard layer.insert(path, .prim, fields) else {
            throw lexer.limitError("more specs than maxSpecs (\(limits.maxSpecs))", at: start.start)
        }
        let open = token
        try expect(.lbrace, "'{' opening the body of prim \(path)")
        try enter(open)
        return (path, name, fields["variantSetChildren"]?.tokens ?? [])
    }

    /// `variantSet "name" = {` — creates the variant-set spec on first sight (`created`).
    private mutating func parseVariantSetHeader(owner: SdfPath) throws(USDParseError) -> (String, created: Bool) {
        try advance()
        let nameToken = token
        let name = try expectString("a quoted variant set name")
        guard Self.isIdentifier(name) else { throw error("invalid variant set name \"\(name)\"", at: nameToken) }
        try expect(.equals, "'=' after the variant set name")
        let open = token
        try expect(.lbrace, "'{' opening variant set \"\(name)\"")
        try enter(open)
        return (name, try createVariantSet(owner: owner, name: name, at: nameToken))
    }

    /// Creates the variant-set spec `/owner{name=}` unless it exists; true when created.
    mutating func createVariantSet(owner: SdfPath, name: String, at t: USDAToken) throws(USDParseError) -> Bool {
        let setPath = owner.appendingVariantSelection(set: name, variant: "")
        switch layer.type(at: setPath) {
        case .variantSet?: return false
        case nil: break
        default: throw error("\(setPath) is not a variant set", at: t)
        }
        try charge(Self.specCost + setPath.utf8Count, "USDA variant set spec", at: t)
        guard layer.insert(setPath, .variantSet, [:]) else {
            throw lexer.limitError("more specs than maxSpecs (\(limits.maxSpecs))", at: t.start)
        }
        return true
    }

    /// `"variant" [( metadata )] {` inside a variant set. Returns the variant path, its name and its
    /// `variantSetChildren` so far.
    private mutating func parseVariantHeader(owner: SdfPath, set: String) throws(USDParseError)
        -> (SdfPath, String, [String])
    {
        let nameToken = token
        let name = try expectString("a quoted variant name")
        guard Self.isVariantName(name) else { throw error("invalid variant name \"\(name)\"", at: nameToken) }
        let path = owner.appendingVariantSelection(set: set, variant: name)
        var fields: [String: SdfValue] = [:]
        switch layer.type(at: path) {
        case nil:
            try charge(Self.specCost + path.utf8Count, "USDA variant spec", at: nameToken)
            guard layer.insert(path, .variant, [:]) else {
                throw lexer.limitError("more specs than maxSpecs (\(limits.maxSpecs))", at: nameToken.start)
            }
        case .variant?:
            fields = layer.takeFields(path)
        default:
            throw error("\(path) is not a variant", at: nameToken)
        }
        if token.kind == .lparen { try parseMetadataBlock(.prim, owner: path, into: &fields) }
        let sets = fields["variantSetChildren"]?.tokens ?? []
        layer.putFields(path, fields)
        let open = token
        try expect(.lbrace, "'{' opening variant \"\(name)\"")
        try enter(open)
        return (path, name, sets)
    }

    /// `reorder nameChildren = …` / `reorder properties = …` (rather than `reorder rel …`).
    private func isReorderStatement() throws(USDParseError) -> Bool {
        var copy = lexer
        let next = try copy.next()
        guard next.kind == .identifier,
            lexer.tokenIs(next, "nameChildren") || lexer.tokenIs(next, "properties")
        else { return false }
        return try copy.next().kind == .equals
    }

    /// `reorder rootPrims|nameChildren|properties = ["a", …]` → `primOrder` / `propertyOrder`.
    private mutating func parseReorder(owner: SdfPath, allowed: String) throws(USDParseError) {
        try advance()
        let what = token
        let field: String
        if owner.isRoot ? lexer.tokenIs(what, "rootPrims") : lexer.tokenIs(what, "nameChildren") {
            field = "primOrder"
        } else if !owner.isRoot && lexer.tokenIs(what, "properties") {
            field = "propertyOrder"
        } else {
            throw error("expected \(allowed) after 'reorder', found \(describe(what))")
        }
        try advance()
        try expect(.equals, "'='")
        let names = try parseNameList()
        layer.set(owner, field, .tokenVector(names))
    }

    /// Resolves a `<path>` token against `anchor` (the prim that owns the opinion). Inside a variant,
    /// relative paths resolve against the prim with its variant selections removed, as Sdf does.
    func resolvePath(_ t: USDAToken, anchor: SdfPath) throws(USDParseError) -> SdfPath {
        let s = lexer.text(t.contentStart, t.contentEnd)
        if s.isEmpty { return .empty }
        for c in s.utf8 where c <= 0x20 || c == 0x7F {
            throw error("invalid character in path <\(s)>", at: t)
        }
        let authored = SdfPath(s)
        if authored.isAbsolute { return authored }
        try charge(anchor.utf8Count + s.utf8.count, "USDA path", at: t)
        let resolved = authored.resolved(against: anchor)
        return anchor.containsVariantSelection ? resolved.strippingVariantSelections : resolved
    }
}
