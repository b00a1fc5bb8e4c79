import JSONCore

/// What the page reads from the manifest: input names, layers, elements and numbers.
extension ReportBuilder {
    // MARK: reading the manifest

    /// Input file names in manifest order (USD, then the RoomPlan JSON; redacted textures left out).
    static func inputNames(_ m: Object) -> [String] {
        objects(m, "inputs").filter { str($0, "role") != "redacted_texture" }.compactMap { str($0, "name") }
    }

    /// The object at `key` (nil when absent or not an object).
    static func obj(_ o: Object?, _ key: String) -> Object? {
        guard let v = o?.member(key), case .object = v else { return nil }
        return v
    }

    /// The elements of the array at `key` (empty when absent or not an array).
    static func list(_ o: Object?, _ key: String) -> [Object] { o?.member(key)?.arrayValue ?? [] }

    /// The objects among the elements of the array at `key`.
    static func objects(_ o: Object?, _ key: String) -> [Object] {
        list(o, key).filter { if case .object = $0 { return true } else { return false } }
    }

    /// The keys of an object, once each, in document order.
    static func keys(_ o: Object?) -> [String] {
        guard case .object(let members)? = o else { return [] }
        var seen = Set<String>()
        return members.map(\.key).filter { seen.insert($0).inserted }
    }

    static func str(_ o: Object?, _ key: String) -> String? { o?.member(key)?.stringValue }

    static func bool(_ o: Object?, _ key: String) -> Bool? { o?.member(key)?.boolValue }

    static func num(_ o: Object?, _ key: String) -> Double? { o?.member(key)?.doubleValue }

    static func int(_ o: Object?, _ key: String) -> Int? { o?.member(key)?.intValue }

    /// A vec3 (or any list of numbers) with two decimals each.
    static func vector(_ value: Object?, separator: String) -> String? {
        guard let list = value?.arrayValue, !list.isEmpty else { return nil }
        let numbers = list.compactMap(\.doubleValue)
        guard numbers.count == list.count else { return nil }
        return numbers.map { HTML.fixed($0, 2) }.joined(separator: separator)
    }

    /// `1` for 1.0, `0.01` for 0.01: up to six decimals, trailing zeros removed.
    static func formatShortest(_ x: Double) -> String {
        var s = HTML.fixed(x, 6)
        while s.contains("."), s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    static func e(_ s: String) -> String { HTML.escape(s) }
}
