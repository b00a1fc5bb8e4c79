/// Checks that a `plan.svg` from the job's child is the plain drawing the pipeline writes before
/// it is stored where browsers open it (an SVG may otherwise carry scripts, event handlers, links
/// or external resources, and the child decoding the upload may be compromised): UTF-8, the XML
/// declaration then one `<svg>` in the SVG namespace, only the elements and attributes the plan
/// writer uses, attribute values without `url(`, `:` or markup, text without markup, and no
/// comment, CDATA, DOCTYPE, processing instruction or entity beyond the five predefined ones.
public enum SVGSafety {
    static let elements: Set<String> = ["svg", "g", "rect", "polygon", "line", "path", "text"]
    static let attributes: Set<String> = [
        "xmlns", "width", "height", "viewBox", "font-family", "data-units", "data-locale", "class", "data-story", "data-scale",
        "transform", "x", "y", "fill", "data-layer", "points", "stroke", "stroke-width", "stroke-linejoin", "x1", "y1", "x2", "y2",
        "stroke-linecap", "d", "font-size", "font-weight", "text-anchor", "dominant-baseline", "data-metres", "data-square-metres",
    ]
    static let namespace = "http://www.w3.org/2000/svg"
    static let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    /// nil when the document is safe, else the first problem found.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return "not UTF-8" }
        guard text.hasPrefix(declaration) else { return "does not start with the XML declaration" }
        var s = Substring(text.dropFirst(declaration.count))
        var depth = 0, roots = 0
        while !s.isEmpty {
            guard let lt = s.firstIndex(of: "<") else {
                if let p = textProblem(s) { return p }
                break
            }
            if let p = textProblem(s[..<lt]) { return p }
            if depth == 0, !s[..<lt].allSatisfy(\.isWhitespace) { return "text outside the root element" }
            guard let gt = s[lt...].firstIndex(of: ">") else { return "unterminated tag" }
            let tag = s[s.index(after: lt)..<gt]
            s = s[s.index(after: gt)...]
            if tag.hasPrefix("/") {
                let name = String(tag.dropFirst())
                guard elements.contains(name) else { return "closing tag </\(name.prefix(20))>" }
                depth -= 1
                if depth < 0 { return "unbalanced closing tag" }
                continue
            }
            if tag.hasPrefix("!") || tag.hasPrefix("?") { return "a comment, DOCTYPE, CDATA or processing instruction" }
            let selfClosing = tag.hasSuffix("/")
            let body = selfClosing ? tag.dropLast() : tag
            let name = String(body.prefix { !$0.isWhitespace })
            guard elements.contains(name) else { return "element <\(name.prefix(20))>" }
            if depth == 0 {
                guard name == "svg", roots == 0 else { return "more than one root element, or a root other than <svg>" }
                roots += 1
            }
            if let p = attributeProblem(body.dropFirst(name.count), element: name) { return p }
            if !selfClosing { depth += 1 }
        }
        return depth == 0 && roots == 1 ? nil : "unbalanced elements"
    }

    /// Attributes `name="value"` separated by spaces.
    static func attributeProblem(_ raw: Substring, element: String) -> String? {
        var s = raw
        var sawNamespace = false
        while true {
            s = s.drop { $0 == " " || $0 == "\n" }
            if s.isEmpty { break }
            guard let eq = s.firstIndex(of: "=") else { return "malformed attribute" }
            let name = String(s[..<eq])
            guard attributes.contains(name) else { return "attribute \(name.prefix(20))" }
            s = s[s.index(after: eq)...]
            guard s.first == "\"" else { return "unquoted attribute \(name)" }
            s = s.dropFirst()
            guard let close = s.firstIndex(of: "\"") else { return "unterminated attribute \(name)" }
            let value = s[..<close]
            s = s[s.index(after: close)...]
            if name == "xmlns" {
                guard value == namespace, element == "svg" else { return "namespace \(value.prefix(40))" }
                sawNamespace = true
                continue
            }
            if value.contains("<") || value.contains(">") || value.contains(":") || value.lowercased().contains("url(") {
                return "attribute \(name) holds markup, a colon or url()"
            }
            if let p = textProblem(value) { return p }
        }
        if element == "svg" && !sawNamespace { return "the root is not in the SVG namespace" }
        return nil
    }

    /// Character data: `&` only as one of the five predefined entities, no `>`.
    static func textProblem(_ s: Substring) -> String? {
        if s.contains(">") { return "a stray >" }
        var rest = s
        while let amp = rest.firstIndex(of: "&") {
            let after = rest[amp...]
            guard ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(where: { after.hasPrefix($0) }) else {
                return "an entity other than the predefined ones"
            }
            rest = rest[rest.index(after: amp)...]
        }
        return nil
    }
}
