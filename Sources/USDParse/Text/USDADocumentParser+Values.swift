/// Values: typed scalars and arrays, time samples, dictionaries and untyped (inferred) values.
extension USDADocumentParser {
    // MARK: Typed values

    /// A value of a declared type: `None` → value block; otherwise a scalar or `[ … ]` array whose
    /// elements are read by `parseElement`.
    mutating func parseTypedValue(_ type: SdfValueType, isArray: Bool) throws(USDParseError) -> SdfValue {
        if isKeyword("None") {
            try advance()
            return .valueBlock
        }
        var builder = USDAStorageBuilder(kind: type.storageKind)
        guard isArray else {
            try parseElement(type, into: &builder)
            return .scalar(type, builder.build())
        }
        let open = token
        try expect(.lbracket, "'[' starting a \(type.rawValue)[] value")
        try enter(open)
        let elementBytes = builder.componentBytes * type.components
        let chunk = 4096
        var count = 0
        builder.reserve(min(1024, (lexer.buffer.count - open.end) / 2) * type.components)
        while token.kind != .rbracket {
            try parseElement(type, into: &builder)
            count += 1
            if count > limits.maxArrayElements {
                throw lexer.limitError("array longer than maxArrayElements (\(limits.maxArrayElements))", at: token.start)
            }
            if count % chunk == 0 { try charge(chunk * elementBytes, "USDA array value", at: open) }
            if token.kind == .comma {
                try advance()
            } else if token.kind != .rbracket {
                throw error("expected ',' or ']' in a \(type.rawValue)[] value, found \(describe(token))")
            }
        }
        try charge((count % chunk) * elementBytes, "USDA array value", at: open)
        try advance()
        leave()
        return .array(type, builder.build())
    }

    /// One element: an atom, a `(…)` vector, a real-first quaternion, a `((…), …)` matrix, a quoted
    /// string/token, or an `@asset@`.
    private mutating func parseElement(_ type: SdfValueType, into b: inout USDAStorageBuilder) throws(USDParseError) {
        switch type {
        case .string, .token, .pathExpression:
            guard token.kind == .string else { throw error("expected a quoted \(type.rawValue), found \(describe(token))") }
            b.append(string: lexer.stringValue(token))
            try advance()
        case .asset:
            guard token.kind == .asset else { throw error("expected an @asset@ path, found \(describe(token))") }
            b.append(string: lexer.stringValue(token))
            try advance()
        case .matrix2d, .matrix3d, .matrix4d:
            let n = type == .matrix2d ? 2 : type == .matrix3d ? 3 : 4
            let open = token
            try expect(.lparen, "'(' starting a \(type.rawValue)")
            try enter(open)
            for row in 0..<n {
                try parseTuple(n, into: &b, what: "matrix row")
                if row < n - 1 { try expect(.comma, "',' between rows of a \(type.rawValue)") }
            }
            if token.kind == .comma { try advance() }
            try expect(.rparen, "')' closing a \(type.rawValue) (\(n) rows)")
            leave()
        case .quath, .quatf, .quatd:
            try parseTuple(4, into: &b, what: type.rawValue)
            b.rotateLastQuaternion()
        default:
            let n = type.components
            if n == 1 {
                try parseAtom(into: &b)
            } else {
                try parseTuple(n, into: &b, what: type.rawValue)
            }
        }
    }

    /// `( a, b, … )` with exactly `n` numbers (a trailing comma is allowed).
    private mutating func parseTuple(_ n: Int, into b: inout USDAStorageBuilder, what: @autoclosure () -> String)
        throws(USDParseError)
    {
        let open = token
        guard token.kind == .lparen else { throw error("expected '(' starting a \(what()), found \(describe(token))") }
        try advance()
        try enter(open)
        for i in 0..<n {
            try parseAtom(into: &b)
            if i < n - 1 {
                guard token.kind == .comma else {
                    throw error("expected ',' in a \(what()) of \(n) values, found \(describe(token))")
                }
                try advance()
            }
        }
        if token.kind == .comma { try advance() }
        guard token.kind == .rparen else {
            throw error("expected ')' closing a \(what()) of \(n) values, found \(describe(token))")
        }
        try advance()
        leave()
    }

    /// A number, `inf`/`nan`, or `true`/`false`.
    private mutating func parseAtom(into b: inout USDAStorageBuilder) throws(USDParseError) {
        let t = token
        var number: USDANumber?
        var boolean: Bool?
        switch t.kind {
        case .number:
            number = numberValue(t)
        case .identifier:
            if lexer.tokenIs(t, "true") || lexer.tokenIs(t, "True") {
                boolean = true
            } else if lexer.tokenIs(t, "false") || lexer.tokenIs(t, "False") {
                boolean = false
            } else if lexer.tokenIs(t, "inf") {
                number = .real(.infinity)
            } else if lexer.tokenIs(t, "nan") {
                number = .real(.nan)
            }
        default:
            break
        }
        do throws(USDAStorageBuilder.AppendError) {
            if let boolean {
                try b.append(bool: boolean)
            } else if let number {
                try b.append(number)
            } else {
                throw .notNumeric
            }
        } catch {
            switch error {
            case .outOfRange(let typeName): throw self.error("\(text(t)) is out of range for \(typeName)", at: t)
            case .notNumeric: throw self.error("expected a number, found \(describe(t))", at: t)
            }
        }
        try advance()
    }

    func numberValue(_ t: USDAToken) -> USDANumber {
        USDANumber.parse(UnsafeBufferPointer(rebasing: lexer.buffer[t.start..<t.end]))
    }

    /// A plain number (layer offsets, time codes); `inf`/`nan` accepted.
    mutating func parseNumber() throws(USDParseError) -> USDANumber {
        let t = token
        let value: USDANumber
        if t.kind == .number {
            value = numberValue(t)
        } else if lexer.tokenIs(t, "inf") {
            value = .real(.infinity)
        } else if lexer.tokenIs(t, "nan") {
            value = .real(.nan)
        } else {
            throw error("expected a number, found \(describe(t))")
        }
        try advance()
        return value
    }

    // MARK: Time samples

    /// `{ time: value | None, … }` → `.timeSamples` with ascending times (a repeated time keeps
    /// the last value).
    mutating func parseTimeSamples(
        _ valueType: (type: SdfValueType, isArray: Bool)?, typeName: String, owner: SdfPath
    ) throws(USDParseError) -> SdfValue {
        let open = token
        try expect(.lbrace, "'{' starting timeSamples")
        try enter(open)
        var samples: [(time: Double, value: SdfValue)] = []
        while token.kind != .rbrace {
            let timeToken = token
            let time = try parseNumber().double
            guard !time.isNaN else { throw error("time sample at nan", at: timeToken) }
            try expect(.colon, "':' after a sample time")
            let value: SdfValue
            if isKeyword("None") {
                try advance()
                value = .valueBlock
            } else if let valueType {
                value = try parseTypedValue(valueType.type, isArray: valueType.isArray)
            } else {
                value = try parseGenericValue(anchor: owner).inferred
            }
            try charge(64, "USDA time sample", at: timeToken)
            samples.append((time, value))
            guard samples.count <= limits.maxTimeSamples else {
                throw lexer.limitError("more time samples than maxTimeSamples (\(limits.maxTimeSamples))",
                                       at: timeToken.start)
            }
            if token.kind == .comma { try advance() } else if token.kind != .rbrace {
                throw error("expected ',' or '}' in timeSamples, found \(describe(token))")
            }
        }
        try advance()
        leave()
        // Stable sort by time; among equal times the last authored sample wins.
        let order = samples.indices.sorted { a, b in
            samples[a].time < samples[b].time || (samples[a].time == samples[b].time && a < b)
        }
        var times: [Double] = []
        var values: [SdfValue] = []
        for i in order {
            if let last = times.last, last == samples[i].time {
                values[values.count - 1] = samples[i].value
            } else {
                times.append(samples[i].time)
                values.append(samples[i].value)
            }
        }
        return .timeSamples(SdfTimeSamples(times: times, values: values))
    }

    // MARK: Dictionaries

    /// `{ type key = value … }` with `dictionary key = { … }` nesting, parsed iteratively.
    /// Keys are identifiers or quoted strings; values are typed like attribute values.
    mutating func parseDictionary(anchor: SdfPath) throws(USDParseError) -> [String: SdfValue] {
        let open = token
        try expect(.lbrace, "'{' starting a dictionary")
        try enter(open)
        var stack: [(entries: [String: SdfValue], key: String)] = []
        var entries: [String: SdfValue] = [:]
        while true {
            if token.kind == .semicolon {
                try advance()
                continue
            }
            if token.kind == .rbrace {
                try advance()
                leave()
                guard let (parent, key) = stack.popLast() else { return entries }
                let child = entries
                entries = parent
                entries[key] = .dictionary(child)
                continue
            }
            let typeToken = token
            guard token.kind == .identifier else {
                throw error("expected a typed dictionary entry (e.g. string key = \"value\") or '}', found \(describe(token))")
            }
            try advance()
            var isArray = false
            if token.kind == .lbracket {
                try advance()
                try expect(.rbracket, "']' in an array type name")
                isArray = true
            }
            let key: String
            if token.kind == .string {
                key = lexer.stringValue(token)
                try advance()
            } else {
                key = try expectIdentifier("a dictionary key")
            }
            try expect(.equals, "'=' after dictionary key '\(key)'")
            if !isArray && lexer.tokenIs(typeToken, "dictionary") {
                let inner = token
                try expect(.lbrace, "'{' starting dictionary '\(key)'")
                try enter(inner)
                try charge(96 + key.utf8.count, "USDA dictionary entry", at: typeToken)
                stack.append((entries, key))
                entries = [:]
                continue
            }
            let typeName = text(typeToken) + (isArray ? "[]" : "")
            guard let (type, array) = SdfValueType.parse(typeName: typeName) else {
                throw error("unknown value type '\(typeName)' in a dictionary", at: typeToken)
            }
            try charge(96 + key.utf8.count, "USDA dictionary entry", at: typeToken)
            entries[key] = try parseTypedValue(type, isArray: array)
            guard entries.count <= limits.maxDictionaryEntries else {
                throw lexer.limitError("dictionary larger than maxDictionaryEntries (\(limits.maxDictionaryEntries))",
                                       at: typeToken.start)
            }
        }
    }

    // MARK: Untyped values

    /// Any value without a declared type: atoms, `( … )` tuples, `[ … ]` lists (nested to any depth
    /// within `maxTextNesting`, parsed iteratively), `None`, or a dictionary.
    mutating func parseGenericValue(anchor: SdfPath) throws(USDParseError) -> USDAGenericValue {
        if token.kind == .lbrace { return .dictionary(try parseDictionary(anchor: anchor)) }
        var stack: [(isTuple: Bool, items: [USDAGenericValue])] = []
        while true {
            var value: USDAGenericValue
            let t = token
            switch t.kind {
            case .lparen, .lbracket:
                let isTuple = t.kind == .lparen
                try enter(t)
                try advance()
                if token.kind == (isTuple ? .rparen : .rbracket) {
                    try advance()
                    leave()
                    value = isTuple ? .tuple([]) : .list([])
                } else {
                    stack.append((isTuple, []))
                    continue
                }
            case .number:
                value = .number(numberValue(t))
                try advance()
            case .string:
                value = .string(lexer.stringValue(t))
                try advance()
            case .asset:
                value = .asset(lexer.stringValue(t))
                try advance()
            case .path:
                value = .path(try resolvePath(t, anchor: anchor))
                try advance()
            case .identifier:
                if lexer.tokenIs(t, "None") {
                    value = .none
                } else if lexer.tokenIs(t, "inf") {
                    value = .number(.real(.infinity))
                } else if lexer.tokenIs(t, "nan") {
                    value = .number(.real(.nan))
                } else {
                    value = .identifier(text(t))
                }
                try advance()
            default:
                throw error("expected a value, found \(describe(t))")
            }
            try charge(48, "USDA value", at: t)
            // Attach the finished value to the enclosing tuples/lists, closing as many as end here.
            while true {
                guard var top = stack.popLast() else { return value }
                top.items.append(value)
                if top.items.count > limits.maxArrayElements {
                    throw lexer.limitError("list longer than maxArrayElements (\(limits.maxArrayElements))",
                                           at: token.start)
                }
                let closer: USDATokenKind = top.isTuple ? .rparen : .rbracket
                if token.kind == .comma {
                    try advance()
                    if token.kind != closer {
                        stack.append(top)
                        break
                    }
                }
                guard token.kind == closer else {
                    throw error("expected ',' or '\(top.isTuple ? ")" : "]")', found \(describe(token))")
                }
                try advance()
                leave()
                value = top.isTuple ? .tuple(top.items) : .list(top.items)
            }
        }
    }
}
