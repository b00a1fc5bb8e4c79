import Foundation
import WorkerRuntime

/// What the page reads from the manifest: input names, layers, elements and numbers.
extension ReportBuilder {
    // MARK: reading the manifest

    /// Input file names in manifest order (USD, then the RoomPlan JSON; redacted textures left out).
    static func inputNames(_ m: Object) -> [String] {
        ((m["inputs"] as? [Any]) ?? []).compactMap { $0 as? Object }
            .filter { str($0, "role") != "redacted_texture" }
            .compactMap { str($0, "name") }
    }

    static func str(_ o: Object?, _ key: String) -> String? { o?[key] as? String }

    static func num(_ o: Object?, _ key: String) -> Double? {
        guard let v = o?[key], !(v is NSNull) else { return nil }
        return (v as? NSNumber)?.doubleValue
    }

    static func int(_ o: Object?, _ key: String) -> Int? {
        guard let v = o?[key], !(v is NSNull) else { return nil }
        return v as? Int
    }

    /// A vec3 (or any list of numbers) with two decimals each.
    static func vector(_ value: Any?, separator: String) -> String? {
        guard let list = value as? [Any], !list.isEmpty else { return nil }
        let numbers = list.compactMap { ($0 as? NSNumber)?.doubleValue }
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
