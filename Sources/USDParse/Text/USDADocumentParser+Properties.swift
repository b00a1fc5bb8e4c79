/// Attribute and relationship statements.
extension USDADocumentParser {
    /// Parses one property statement of the prim (or variant) at `owner` and returns the property
    /// name. Repeated statements for the same property (`a = 1`, `a.timeSamples = …`,
    /// `a.connect = …`) edit one spec.
    mutating func parseProperty(owner: SdfPath) throws(USDParseError) -> String {
        let start = token
        guard token.kind == .identifier else {
            throw error("expected a property, prim or variantSet statement, found \(describe(token))")
        }
        var listOp: USDAListOpKind?
        if let kind = listOpKeyword {
            listOp = kind
            try advance()
        }
        var custom = false
        var uniform = false
        var varying = false
        while token.kind == .identifier {
            if isKeyword("custom") {
                custom = true
            } else if isKeyword("uniform") || isKeyword("config") {
                uniform = true
            } else if isKeyword("varying") {
                varying = true
            } else {
                break
            }
            try advance()
        }
        if isKeyword("rel") {
            try advance()
            return try parseRelationship(owner: owner, listOp: listOp, custom: custom, varying: varying, start: start)
        }
        let typeToken = token
        var typeName = try expectIdentifier("a property type name")
        if token.kind == .lbracket {
            try advance()
            try expect(.rbracket, "']' in an array type name")
            typeName += "[]"
        }
        let valueType = SdfValueType.parse(typeName: typeName)
        guard valueType != nil || typeName == "opaque" || typeName == "group" else {
            throw error("unknown attribute type '\(typeName)'", at: typeToken)
        }
        let nameToken = token
        let name = try expectIdentifier("a property name after type \(typeName)")
        let path = owner.appendingProperty(name)
        // Edit the fields locally and store them once (a repeated statement re-opens the spec).
        var fields: [String: SdfValue]
        let isNew: Bool
        switch layer.type(at: path) {
        case nil:
            fields = ["typeName": .token(typeName)]
            isNew = true
        case .attribute?:
            fields = layer.takeFields(path)
            guard fields["typeName"]?.token == typeName else {
                throw error("\(path) is already declared with a different type", at: nameToken)
            }
            isNew = false
        default:
            throw error("\(path) is already declared as a relationship", at: nameToken)
        }
        if custom { fields["custom"] = .bool(true) }
        if uniform { fields["variability"] = .variability(.uniform) }

        if token.kind == .dot {
            try advance()
            let suffixToken = token
            let suffix = try expectIdentifier("'connect', 'timeSamples' or 'spline' after '.'")
            try expect(.equals, "'=' after .\(suffix)")
            switch suffix {
            case "connect":
                let targets = try parsePathList(anchor: owner)
                var op: SdfListOp<SdfPath> = SdfListOp()
                if case .pathListOp(let existing) = fields["connectionPaths"] { op = existing }
                op.apply(listOp ?? .explicit, targets)
                fields["connectionPaths"] = .pathListOp(op)
            case "timeSamples":
                guard listOp == nil else { throw error("list-op keyword on timeSamples", at: start) }
                fields["timeSamples"] = try parseTimeSamples(valueType, typeName: typeName, owner: owner)
            case "spline":
                guard listOp == nil else { throw error("list-op keyword on spline", at: start) }
                try skipBalancedBlock()
                fields["spline"] = .unsupported("spline")
                layer.warnings.append("\(path): spline values are not decoded")
            case "default":
                guard listOp == nil else { throw error("list-op keyword on a default value", at: start) }
                fields["default"] = try parseDefault(path: path, valueType, typeName: typeName, owner: owner)
            default:
                throw error("unknown property field '.\(suffix)'", at: suffixToken)
            }
        } else if token.kind == .equals {
            guard listOp == nil else { throw error("list-op keyword on an attribute value (only .connect)", at: start) }
            try advance()
            fields["default"] = try parseDefault(path: path, valueType, typeName: typeName, owner: owner)
        } else if listOp != nil {
            throw error("list-op keyword without a .connect assignment", at: start)
        }
        if token.kind == .lparen { try parseMetadataBlock(.property, owner: path, anchor: owner, into: &fields) }
        try store(path, .attribute, fields, isNew: isNew, at: start)
        return name
    }

    private mutating func store(_ path: SdfPath, _ type: SdfSpecType, _ fields: [String: SdfValue], isNew: Bool,
                                at start: USDAToken) throws(USDParseError)
    {
        if !isNew {
            layer.putFields(path, fields)
            return
        }
        try charge(Self.specCost + path.utf8Count, "USDA property spec", at: start)
        if !layer.insert(path, type, fields) {
            throw lexer.limitError("more specs than maxSpecs (\(limits.maxSpecs))", at: start.start)
        }
    }

    /// The value after `=` of an attribute, typed by its declared type name (nil: a value of an
    /// unsupported type, skipped with a warning).
    private mutating func parseDefault(
        path: SdfPath, _ valueType: (type: SdfValueType, isArray: Bool)?, typeName: String, owner: SdfPath
    ) throws(USDParseError) -> SdfValue? {
        if let valueType { return try parseTypedValue(valueType.type, isArray: valueType.isArray) }
        if isKeyword("None") {
            try advance()
            return .valueBlock
        }
        _ = try parseGenericValue(anchor: owner)
        layer.warnings.append("\(path): value of unsupported type '\(typeName)' skipped")
        return nil
    }

    /// `rel name [= None | <path> | [<path>, …]] [( metadata )]`.
    private mutating func parseRelationship(
        owner: SdfPath, listOp: USDAListOpKind?, custom: Bool, varying: Bool, start: USDAToken
    ) throws(USDParseError) -> String {
        let nameToken = token
        let name = try expectIdentifier("a relationship name")
        let path = owner.appendingProperty(name)
        var fields: [String: SdfValue] = [:]
        let isNew: Bool
        switch layer.type(at: path) {
        case nil: isNew = true
        case .relationship?:
            fields = layer.takeFields(path)
            isNew = false
        default: throw error("\(path) is already declared as an attribute", at: nameToken)
        }
        if custom { fields["custom"] = .bool(true) }
        if !varying { fields["variability"] = .variability(.uniform) }
        if token.kind == .dot {
            // Legacy `rel r.default = <…>` spelling.
            try advance()
            guard isKeyword("default") else { throw error("expected 'default' after '.' on a relationship") }
            try advance()
            guard token.kind == .equals else { throw error("expected '=' after rel .default") }
        }
        if token.kind == .equals {
            try advance()
            let targets = try parsePathList(anchor: owner)
            var op: SdfListOp<SdfPath> = SdfListOp()
            if case .pathListOp(let existing) = fields["targetPaths"] { op = existing }
            op.apply(listOp ?? .explicit, targets)
            fields["targetPaths"] = .pathListOp(op)
        } else if listOp != nil {
            throw error("list-op keyword on a relationship without targets", at: start)
        }
        if token.kind == .lparen { try parseMetadataBlock(.property, owner: path, anchor: owner, into: &fields) }
        try store(path, .relationship, fields, isNew: isNew, at: start)
        return name
    }

    /// `None` | `<path>` | `[<path>, …]` (trailing comma allowed).
    mutating func parsePathList(anchor: SdfPath) throws(USDParseError) -> [SdfPath] {
        if isKeyword("None") {
            try advance()
            return []
        }
        if token.kind == .path {
            let p = try resolvePath(token, anchor: anchor)
            try advance()
            return [p]
        }
        let open = token
        try expect(.lbracket, "a path <…>, a list of paths or None")
        try enter(open)
        var paths: [SdfPath] = []
        while token.kind != .rbracket {
            guard token.kind == .path else { throw error("expected a path <…>, found \(describe(token))") }
            paths.append(try resolvePath(token, anchor: anchor))
            guard paths.count <= limits.maxDictionaryEntries else {
                throw lexer.limitError("path list longer than maxDictionaryEntries (\(limits.maxDictionaryEntries))",
                                       at: token.start)
            }
            try advance()
            if token.kind == .comma { try advance() } else if token.kind != .rbracket {
                throw error("expected ',' or ']' in a path list, found \(describe(token))")
            }
        }
        try advance()
        leave()
        return paths
    }

    /// Skips a `{ … }` block with balanced brackets (spline bodies, which are not decoded).
    mutating func skipBalancedBlock() throws(USDParseError) {
        let open = token
        try expect(.lbrace, "'{'")
        try enter(open)
        var opened = 1
        while opened > 0 {
            switch token.kind {
            case .lbrace, .lparen, .lbracket:
                try enter(token)
                opened += 1
            case .rbrace, .rparen, .rbracket:
                leave()
                opened -= 1
            case .eof:
                throw error("unterminated block", at: open)
            default:
                break
            }
            try advance()
        }
    }
}
