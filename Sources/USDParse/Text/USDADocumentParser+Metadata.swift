/// Metadata blocks `( … )` of layers, prims, variants and properties, with list ops, references,
/// payloads, sublayers and relocates.
extension USDADocumentParser {
    enum MetadataContext { case layer, prim, property }

    /// Parses `( item; item … )` into `fields` (the fields of the spec at `owner`). Paths resolve
    /// against `anchor` (default: `owner`).
    mutating func parseMetadataBlock(
        _ context: MetadataContext, owner: SdfPath, anchor: SdfPath? = nil, into fields: inout [String: SdfValue]
    ) throws(USDParseError) {
        let anchor = anchor ?? owner
        let open = token
        try expect(.lparen, "'('")
        try enter(open)
        while true {
            switch token.kind {
            case .semicolon:
                try advance()
            case .rparen:
                try advance()
                leave()
                return
            case .eof:
                throw error("unterminated metadata block: missing ')'", at: open)
            case .string:
                fields["comment"] = .string(lexer.stringValue(token))
                try advance()
            default:
                try parseMetadataItem(context, owner: owner, anchor: anchor, into: &fields)
            }
        }
    }

    private mutating func parseMetadataItem(
        _ context: MetadataContext, owner: SdfPath, anchor: SdfPath, into fields: inout [String: SdfValue]
    ) throws(USDParseError) {
        let start = token
        var listOp: USDAListOpKind?
        if let kind = listOpKeyword, try peekNext().kind == .identifier {
            listOp = kind
            try advance()
        }
        let keyToken = token
        let key = try expectIdentifier("a metadata name")
        try expect(.equals, "'=' after metadata '\(key)'")

        if context == .layer && listOp == nil {
            if key == "subLayers" { return try parseSubLayers(into: &fields) }
            if key == "relocates" {
                fields["layerRelocates"] = .relocates(try parseRelocates(anchor: anchor))
                return
            }
        }
        guard let entry = USDAMetadataSchema.entry(for: key) else {
            try parseUnregistered(key: key, listOp: listOp, anchor: anchor, into: &fields)
            return
        }
        if listOp != nil && !USDAMetadataSchema.isListOp(entry.shape) {
            throw error("'\(key)' does not accept list-op keywords", at: start)
        }
        let kind = listOp ?? .explicit
        switch entry.shape {
        case .value(let type, let isArray):
            fields[entry.field] = try parseTypedValue(type, isArray: isArray)
        case .dictionary:
            fields[entry.field] = .dictionary(try parseDictionary(anchor: anchor))
        case .permission:
            let t = token
            let word = try expectIdentifier("'public' or 'private'")
            switch word {
            case "public": fields[entry.field] = .permission(.public)
            case "private": fields[entry.field] = .permission(.private)
            default: throw error("expected 'public' or 'private', found '\(word)'", at: t)
            }
        case .variantSelection:
            let t = token
            var selection: [String: String] = [:]
            for (set, value) in try parseDictionary(anchor: anchor) {
                guard case .scalar(.string, .string(let s)) = value, let v = s.first else {
                    throw error("variant selections must be strings (string set = \"variant\")", at: t)
                }
                selection[set] = v
            }
            fields[entry.field] = .variantSelection(selection)
        case .tokenListOp:
            let names = try parseNameList()
            var op: SdfListOp<String> = SdfListOp()
            if case .tokenListOp(let existing) = fields[entry.field] { op = existing }
            op.apply(kind, names)
            fields[entry.field] = .tokenListOp(op)
        case .stringListOp:
            let namesToken = token
            let names = try parseNameList()
            var op: SdfListOp<String> = SdfListOp()
            if case .stringListOp(let existing) = fields[entry.field] { op = existing }
            op.apply(kind, names)
            fields[entry.field] = .stringListOp(op)
            if key == "variantSets" && context == .prim && (kind == .explicit || kind == .added) {
                // Sdf's text reader creates the variant sets named by an explicit or added list and
                // replaces `variantSetChildren` with those names.
                for name in names {
                    guard Self.isIdentifier(name) else {
                        throw error("invalid variant set name \"\(name)\"", at: namesToken)
                    }
                    _ = try createVariantSet(owner: owner, name: name, at: keyToken)
                }
                fields["variantSetChildren"] = names.isEmpty ? nil : .tokenVector(names)
            }
        case .pathListOp:
            let paths = try parsePathList(anchor: anchor)
            var op: SdfListOp<SdfPath> = SdfListOp()
            if case .pathListOp(let existing) = fields[entry.field] { op = existing }
            op.apply(kind, paths)
            fields[entry.field] = .pathListOp(op)
        case .referenceListOp:
            let refs = try parseArcList(anchor: anchor, isPayload: false)
            var op: SdfListOp<SdfReference> = SdfListOp()
            if case .referenceListOp(let existing) = fields[entry.field] { op = existing }
            op.apply(kind, refs)
            fields[entry.field] = .referenceListOp(op)
        case .payloadListOp:
            let refs = try parseArcList(anchor: anchor, isPayload: true)
            var op: SdfListOp<SdfPayload> = SdfListOp()
            if case .payloadListOp(let existing) = fields[entry.field] { op = existing }
            op.apply(kind, refs.map { SdfPayload(assetPath: $0.assetPath, primPath: $0.primPath, layerOffset: $0.layerOffset) })
            fields[entry.field] = .payloadListOp(op)
        }
    }

    /// Unregistered metadata: the value's type is inferred from the literal.
    private mutating func parseUnregistered(
        key: String, listOp: USDAListOpKind?, anchor: SdfPath, into fields: inout [String: SdfValue]
    ) throws(USDParseError) {
        let valueToken = token
        let value = try parseGenericValue(anchor: anchor)
        guard let listOp else {
            fields[key] = value.inferred
            return
        }
        var items: [USDAGenericValue]
        switch value {
        case .list(let list): items = list
        case .none: items = []
        default: items = [value]
        }
        var strings: [String] = []
        var paths: [SdfPath] = []
        var ints: [Int64] = []
        for item in items {
            switch item {
            case .string(let s): strings.append(s)
            case .path(let p): paths.append(p)
            case .number(let n) where n.integer(as: Int64.self) != nil:
                ints.append(n.integer(as: Int64.self) ?? 0)
            default:
                throw error("unsupported list-op items for metadata '\(key)'", at: valueToken)
            }
        }
        let mixed = [strings.isEmpty, paths.isEmpty, ints.isEmpty].filter { !$0 }.count > 1
        if mixed { throw error("mixed list-op items for metadata '\(key)'", at: valueToken) }
        let existing = fields[key]
        if !paths.isEmpty {
            var op: SdfListOp<SdfPath> = SdfListOp()
            if case .pathListOp(let e) = existing { op = e }
            op.apply(listOp, paths)
            fields[key] = .pathListOp(op)
        } else if !ints.isEmpty {
            var op: SdfListOp<Int64> = SdfListOp()
            if case .intListOp(let e) = existing { op = e }
            op.apply(listOp, ints)
            fields[key] = .intListOp(op)
        } else {
            var op: SdfListOp<String> = SdfListOp()
            if case .stringListOp(let e) = existing { op = e }
            op.apply(listOp, strings)
            fields[key] = .stringListOp(op)
        }
    }

    /// `"name"` | `["a", "b", …]` | `None` (empty).
    mutating func parseNameList() throws(USDParseError) -> [String] {
        if token.kind == .string {
            let s = lexer.stringValue(token)
            try advance()
            return [s]
        }
        if isKeyword("None") {
            try advance()
            return []
        }
        let open = token
        try expect(.lbracket, "a string or a list of strings")
        try enter(open)
        var names: [String] = []
        while token.kind != .rbracket {
            names.append(try expectString("a string in the name list"))
            guard names.count <= limits.maxDictionaryEntries else {
                throw lexer.limitError("name list longer than maxDictionaryEntries (\(limits.maxDictionaryEntries))",
                                       at: token.start)
            }
            if token.kind == .comma { try advance() } else if token.kind != .rbracket {
                throw error("expected ',' or ']' in a name list, found \(describe(token))")
            }
        }
        try advance()
        leave()
        return names
    }

    /// References or payloads: `None` | item | `[item, …]`; item = `@asset@[<prim>][(params)]` or
    /// `<prim>[(params)]` (an internal arc).
    private mutating func parseArcList(anchor: SdfPath, isPayload: Bool) throws(USDParseError) -> [SdfReference] {
        if isKeyword("None") {
            try advance()
            return []
        }
        guard token.kind == .lbracket else { return [try parseArc(anchor: anchor, isPayload: isPayload)] }
        let open = token
        try advance()
        try enter(open)
        var arcs: [SdfReference] = []
        while token.kind != .rbracket {
            arcs.append(try parseArc(anchor: anchor, isPayload: isPayload))
            guard arcs.count <= limits.maxDictionaryEntries else {
                throw lexer.limitError("arc list longer than maxDictionaryEntries (\(limits.maxDictionaryEntries))",
                                       at: token.start)
            }
            if token.kind == .comma { try advance() } else if token.kind != .rbracket {
                throw error("expected ',' or ']' in a \(isPayload ? "payload" : "reference") list, found \(describe(token))")
            }
        }
        try advance()
        leave()
        return arcs
    }

    private mutating func parseArc(anchor: SdfPath, isPayload: Bool) throws(USDParseError) -> SdfReference {
        var ref = SdfReference(assetPath: "")
        if token.kind == .asset {
            ref.assetPath = lexer.stringValue(token)
            try advance()
            if token.kind == .path {
                ref.primPath = try resolvePath(token, anchor: anchor)
                try advance()
            }
        } else if token.kind == .path {
            ref.primPath = try resolvePath(token, anchor: anchor)
            try advance()
        } else {
            throw error("expected @asset@ or <path> in a \(isPayload ? "payload" : "reference"), found \(describe(token))")
        }
        if token.kind == .lparen {
            let (offset, customData) = try parseArcParams(allowCustomData: !isPayload)
            ref.layerOffset = offset
            ref.customData = customData
        }
        return ref
    }

    /// `( offset = n; scale = n; customData = { … } )`.
    private mutating func parseArcParams(allowCustomData: Bool) throws(USDParseError)
        -> (SdfLayerOffset, [String: SdfValue])
    {
        let open = token
        try expect(.lparen, "'('")
        try enter(open)
        var offset = SdfLayerOffset.identity
        var customData: [String: SdfValue] = [:]
        while true {
            if token.kind == .semicolon {
                try advance()
                continue
            }
            if token.kind == .rparen { break }
            let keyToken = token
            let key = try expectIdentifier("'offset', 'scale' or 'customData'")
            try expect(.equals, "'=' after '\(key)'")
            switch key {
            case "offset": offset.offset = try parseNumber().double
            case "scale": offset.scale = try parseNumber().double
            case "customData" where allowCustomData: customData = try parseDictionary(anchor: .root)
            default: throw error("unexpected '\(key)' in layer offset parameters", at: keyToken)
            }
        }
        try advance()
        leave()
        return (offset, customData)
    }

    /// `subLayers = [@a@ (offset = 1; scale = 2), @b@]` → `subLayers` + parallel `subLayerOffsets`.
    private mutating func parseSubLayers(into fields: inout [String: SdfValue]) throws(USDParseError) {
        let open = token
        try expect(.lbracket, "'[' starting the subLayers list")
        try enter(open)
        var paths: [String] = []
        var offsets: [SdfLayerOffset] = []
        while token.kind != .rbracket {
            guard token.kind == .asset else { throw error("expected @asset@ in subLayers, found \(describe(token))") }
            paths.append(lexer.stringValue(token))
            try advance()
            var offset = SdfLayerOffset.identity
            if token.kind == .lparen { offset = try parseArcParams(allowCustomData: false).0 }
            offsets.append(offset)
            guard paths.count <= limits.maxDictionaryEntries else {
                throw lexer.limitError("more subLayers than maxDictionaryEntries", at: token.start)
            }
            if token.kind == .comma { try advance() } else if token.kind != .rbracket {
                throw error("expected ',' or ']' in subLayers, found \(describe(token))")
            }
        }
        try advance()
        leave()
        fields["subLayers"] = .stringVector(paths)
        fields["subLayerOffsets"] = .layerOffsetVector(offsets)
    }

    /// `{ <source>: <target>, … }`.
    private mutating func parseRelocates(anchor: SdfPath) throws(USDParseError) -> [SdfPath: SdfPath] {
        let open = token
        try expect(.lbrace, "'{' starting relocates")
        try enter(open)
        var map: [SdfPath: SdfPath] = [:]
        while token.kind != .rbrace {
            guard token.kind == .path else { throw error("expected a source path in relocates, found \(describe(token))") }
            let source = try resolvePath(token, anchor: anchor)
            try advance()
            try expect(.colon, "':' in relocates")
            guard token.kind == .path else { throw error("expected a target path in relocates, found \(describe(token))") }
            map[source] = try resolvePath(token, anchor: anchor)
            try advance()
            guard map.count <= limits.maxDictionaryEntries else {
                throw lexer.limitError("relocates larger than maxDictionaryEntries", at: token.start)
            }
            if token.kind == .comma || token.kind == .semicolon { try advance() } else if token.kind != .rbrace {
                throw error("expected ',' or '}' in relocates, found \(describe(token))")
            }
        }
        try advance()
        leave()
        return map
    }
}
