import Manifest

/// What the page reads from the manifest beyond its members: the input names and numbers in the
/// page's format.
extension ReportBuilder {
    /// Input file names in manifest order (USD, then the RoomPlan JSON; redacted textures left out).
    static func inputNames(_ m: Document) -> [String] {
        m.inputs.filter { $0.role != "redacted_texture" }.map(\.name)
    }

    /// A vec3 as the manifest writes it, with two decimals each.
    static func vector(_ v: SIMD3<Double>, separator: String) -> String {
        [v.x, v.y, v.z].map { HTML.fixed(Document.written($0), 2) }.joined(separator: separator)
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
