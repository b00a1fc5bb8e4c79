import Foundation

/// A small JSON Schema (draft 2020-12) validator for the keywords the manifest schema uses:
/// `type` (a name or an array of names, `integer` = a number without fraction), `properties`,
/// `required`, `additionalProperties`, `patternProperties`, `propertyNames`, `items`,
/// `prefixItems`, `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
/// `minItems`, `maxItems`, `minLength`, `maxLength`, `pattern` (NSRegularExpression, unanchored
/// search as the spec says), `$ref` to `#/…` pointers, `anyOf`, `oneOf`, `allOf`, `not`, and boolean
/// schemas. Annotations (`$schema`, `$id`, `$defs`, `title`, `description`, `$comment`) are
/// accepted and ignored. Any other keyword makes `init` throw, so the schema cannot silently rely
/// on a keyword this validator does not check.
struct SchemaValidator {
    let root: JSONDocument

    struct UnsupportedKeyword: Error, CustomStringConvertible {
        var keyword: String
        var path: String
        var description: String { "unsupported schema keyword \(keyword) at \(path)" }
    }

    static let annotations: Set<String> = ["$schema", "$id", "$defs", "title", "description", "$comment"]
    static let assertions: Set<String> = [
        "type", "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "items",
        "prefixItems", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems",
        "maxItems", "minLength", "maxLength", "pattern", "$ref", "anyOf", "oneOf", "allOf", "not",
    ]

    init(schema: JSONDocument) throws {
        root = schema
        try Self.checkKeywords(schema, path: "#")
    }

    /// Every subschema's keywords are known; patterns compile; `$ref`s resolve.
    private static func checkKeywords(_ schema: JSONDocument, path: String, root: JSONDocument? = nil) throws {
        let root = root ?? schema
        guard case .object(let members) = schema else { return }
        for m in members {
            guard annotations.contains(m.key) || assertions.contains(m.key) else {
                throw UnsupportedKeyword(keyword: m.key, path: path)
            }
            let sub = "\(path)/\(m.key)"
            switch m.key {
            case "properties", "patternProperties", "$defs":
                for p in m.value.objectValue ?? [] { try checkKeywords(p.value, path: "\(sub)/\(p.key)", root: root) }
            case "additionalProperties", "propertyNames", "items", "not":
                try checkKeywords(m.value, path: sub, root: root)
            case "prefixItems", "anyOf", "oneOf", "allOf":
                for (i, s) in (m.value.arrayValue ?? []).enumerated() { try checkKeywords(s, path: "\(sub)/\(i)", root: root) }
            case "pattern":
                _ = try NSRegularExpression(pattern: m.value.stringValue ?? "")
            case "$ref":
                guard resolve(m.value.stringValue ?? "", in: root) != nil else {
                    throw UnsupportedKeyword(keyword: "$ref \(m.value)", path: path)
                }
            default: break
            }
        }
    }

    /// The schema at a `#/…` JSON pointer.
    static func resolve(_ ref: String, in root: JSONDocument) -> JSONDocument? {
        guard ref.hasPrefix("#") else { return nil }
        var node = root
        for token in ref.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let next = node[key] { node = next } else if let i = Int(key), let next = node[i] { node = next } else {
                return nil
            }
        }
        return node
    }

    /// Error messages (`/elements/0/node: …`); empty when `instance` is valid.
    func validate(_ instance: JSONDocument) -> [String] {
        var errors: [String] = []
        check(instance, against: root, at: "", errors: &errors)
        return errors
    }

    private func check(_ value: JSONDocument, against schema: JSONDocument, at path: String, errors: inout [String]) {
        func fail(_ message: String) { errors.append("\(path.isEmpty ? "/" : path): \(message)") }
        switch schema {
        case .bool(true): return
        case .bool(false): return fail("no value is allowed here")
        case .object: break
        default: return fail("schema is not an object or boolean")
        }
        if let ref = schema["$ref"]?.stringValue {
            guard let target = Self.resolve(ref, in: root) else { return fail("unresolvable $ref \(ref)") }
            check(value, against: target, at: path, errors: &errors)
        }
        if let type = schema["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            if !names.contains(where: { Self.has(value, type: $0) }) {
                fail("expected type \(names.joined(separator: " or ")), found \(Self.typeName(value))")
            }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(where: { Self.equal($0, value) }) {
            fail("\(value) is not one of \(options)")
        }
        if let c = schema["const"], !Self.equal(c, value) { fail("expected the constant \(c), found \(value)") }

        if case .number(let d) = value {
            if let m = schema["minimum"]?.numberValue, d < m { fail("\(d) < minimum \(m)") }
            if let m = schema["maximum"]?.numberValue, d > m { fail("\(d) > maximum \(m)") }
            if let m = schema["exclusiveMinimum"]?.numberValue, d <= m { fail("\(d) <= exclusive minimum \(m)") }
            if let m = schema["exclusiveMaximum"]?.numberValue, d >= m { fail("\(d) >= exclusive maximum \(m)") }
        }
        if case .string(let s) = value {
            let length = s.unicodeScalars.count
            if let m = schema["minLength"]?.numberValue, Double(length) < m { fail("shorter than \(Int(m))") }
            if let m = schema["maxLength"]?.numberValue, Double(length) > m { fail("longer than \(Int(m))") }
            if let p = schema["pattern"]?.stringValue, !Self.matches(s, p) { fail("\"\(s)\" does not match \(p)") }
        }
        if case .array(let items) = value {
            if let m = schema["minItems"]?.numberValue, Double(items.count) < m { fail("fewer than \(Int(m)) items") }
            if let m = schema["maxItems"]?.numberValue, Double(items.count) > m { fail("more than \(Int(m)) items") }
            let prefix = schema["prefixItems"]?.arrayValue ?? []
            for (i, item) in items.enumerated() {
                if i < prefix.count {
                    check(item, against: prefix[i], at: "\(path)/\(i)", errors: &errors)
                } else if let itemSchema = schema["items"] {
                    check(item, against: itemSchema, at: "\(path)/\(i)", errors: &errors)
                }
            }
        }
        if case .object(let members) = value {
            for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            where !members.contains(where: { $0.key == key }) {
                fail("missing required key \(key)")
            }
            let properties = schema["properties"]?.objectValue ?? []
            let patterns = schema["patternProperties"]?.objectValue ?? []
            for m in members {
                let memberPath = "\(path)/\(m.key)"
                if let names = schema["propertyNames"] { check(.string(m.key), against: names, at: memberPath, errors: &errors) }
                var evaluated = false
                if let p = properties.first(where: { $0.key == m.key }) {
                    evaluated = true
                    check(m.value, against: p.value, at: memberPath, errors: &errors)
                }
                for p in patterns where Self.matches(m.key, p.key) {
                    evaluated = true
                    check(m.value, against: p.value, at: memberPath, errors: &errors)
                }
                if !evaluated, let extra = schema["additionalProperties"] {
                    var sub: [String] = []
                    check(m.value, against: extra, at: memberPath, errors: &sub)
                    if extra == .bool(false) { fail("unexpected key \(m.key)") } else { errors += sub }
                }
            }
        }
        if let all = schema["allOf"]?.arrayValue {
            for s in all { check(value, against: s, at: path, errors: &errors) }
        }
        if let any = schema["anyOf"]?.arrayValue {
            let results = any.map { branch in errorsOf(value, branch, path) }
            if !results.contains(where: \.isEmpty) {
                fail("matches none of anyOf: " + results.map { $0.joined(separator: "; ") }.joined(separator: " | "))
            }
        }
        if let one = schema["oneOf"]?.arrayValue {
            let passing = one.filter { errorsOf(value, $0, path).isEmpty }.count
            if passing != 1 { fail("matches \(passing) branches of oneOf, expected exactly 1") }
        }
        if let not = schema["not"], errorsOf(value, not, path).isEmpty { fail("matches a schema under not") }
    }

    private func errorsOf(_ value: JSONDocument, _ schema: JSONDocument, _ path: String) -> [String] {
        var e: [String] = []
        check(value, against: schema, at: path, errors: &e)
        return e
    }

    static func has(_ value: JSONDocument, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array),
             ("object", .object):
            return true
        case ("integer", .number(let d)): return d.isFinite && d == d.rounded()
        default: return false
        }
    }

    static func typeName(_ value: JSONDocument) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// JSON equality: numbers by value, objects regardless of member order.
    static func equal(_ a: JSONDocument, _ b: JSONDocument) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { m in y.contains { $0.key == m.key && equal($0.value, m.value) } }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        default:
            return a == b
        }
    }

    /// ECMA-262-style unanchored search, as JSON Schema's `pattern` specifies.
    static func matches(_ s: String, _ pattern: String) -> Bool {
        guard let re = try? NSRegularExpression(pattern: pattern) else { return false }
        return re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
    }
}
