import JSONCore

/// A value with its JSON path, for errors.
struct JSONField {
    var value: ParsedJSON
    var path: String

    /// The member `key`; nil when absent or `null`.
    func member(_ key: String) -> JSONField? {
        guard let v = value.member(key) else { return nil }
        if case .null = v { return nil }
        return JSONField(value: v, path: path == "$" ? key : path + "." + key)
    }

    func item(_ i: Int, _ v: ParsedJSON) -> JSONField {
        JSONField(value: v, path: (path == "$" ? "" : path) + "[\(i)]")
    }

    func invalid(_ message: String) -> LayeringError { LayeringError.invalid(message, at: path) }

    func object() throws -> [ParsedJSONMember] {
        guard case .object(let m) = value else { throw invalid("expected an object, found \(value.typeName)") }
        return m
    }

    func array(max: Int, limitName: String) throws -> [ParsedJSON] {
        guard case .array(let a) = value else { throw invalid("expected an array, found \(value.typeName)") }
        guard a.count <= max else {
            throw LayeringError.limit("\(a.count) items; the limit is \(max) (\(limitName))", at: path)
        }
        return a
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw invalid("expected a string, found \(value.typeName)") }
        return s
    }

    func float() throws -> Float {
        guard case .number(let text) = value else { throw invalid("expected a number, found \(value.typeName)") }
        guard let f = Float(text), f.isFinite else { throw invalid("\(text) is not a finite Float32") }
        return f
    }

    func double() throws -> Double {
        guard case .number(let text) = value else { throw invalid("expected a number, found \(value.typeName)") }
        guard let d = Double(text), d.isFinite else { throw invalid("\(text) is not a finite number") }
        return d
    }

    func int() throws -> Int {
        guard case .number(let text) = value else { throw invalid("expected an integer, found \(value.typeName)") }
        if let i = Int(text) { return i }
        guard let d = Double(text), d.isFinite, d.rounded() == d, abs(d) < 1e12, let i = Int(exactly: d) else {
            throw invalid("\(text) is not an integer in range")
        }
        return i
    }

    /// An enum case: a bare string, or a single-key object whose value is the payload.
    func enumCase() throws -> (name: String, payload: JSONField?) {
        switch value {
        case .string(let s): return (s, nil)
        case .object(let m):
            guard m.count == 1, let only = m.first else {
                throw invalid("expected an enum case (a string or a single-key object), found an object with \(m.count) keys")
            }
            let p = JSONField(value: only.value, path: path + "." + (JSONPathComponent.isPlainKey(only.key) ? only.key : "?"))
            return (only.key, p)
        default:
            throw invalid("expected an enum case (a string or a single-key object), found \(value.typeName)")
        }
    }
}
