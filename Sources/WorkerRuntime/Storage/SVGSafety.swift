/// Checks that a `plan.svg` from the job's child is the plain drawing the pipeline writes before
/// it is stored where browsers open it (an SVG may otherwise carry scripts, event handlers, links
/// or external resources, and the child decoding the upload may be compromised): UTF-8, the XML
/// declaration then one `<svg>` in the SVG namespace, only the elements and attributes the plan
/// writer uses, attribute values without `url(`, `:` or markup, text without markup, and no
/// comment, CDATA, DOCTYPE, processing instruction or entity beyond the five predefined ones.
///
/// The document is scanned as bytes, as an XML parser reads it: every markup character is ASCII,
/// so a `<` is found even where a combining mark follows it, and whitespace is XML's (space, tab,
/// carriage return, line feed).
public enum SVGSafety {
    static let elements: Set<String> = ["svg", "g", "rect", "polygon", "line", "path", "text"]
    static let attributes: Set<String> = [
        "xmlns", "width", "height", "viewBox", "font-family", "data-units", "data-locale", "class", "data-story", "data-scale",
        "transform", "x", "y", "fill", "data-layer", "points", "stroke", "stroke-width", "stroke-linejoin", "x1", "y1", "x2", "y2",
        "stroke-linecap", "d", "font-size", "font-weight", "text-anchor", "dominant-baseline", "data-metres", "data-square-metres",
    ]
    static let namespace = "http://www.w3.org/2000/svg"
    static let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static let entities = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].map { Array($0.utf8) }

    static let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), slash = UInt8(ascii: "/"), quote = UInt8(ascii: "\"")

    /// nil when the document is safe, else the first problem found.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return "not UTF-8" }
        let head = Array(declaration.utf8)
        guard bytes.starts(with: head) else { return "does not start with the XML declaration" }
        return bytes.withUnsafeBufferPointer { b in document(b, from: head.count) }
    }

    static func document(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> String? {
        var at = start
        var depth = 0, roots = 0
        while at < b.count {
            guard let open = index(of: lt, in: b, from: at, to: b.count) else {
                if let p = textProblem(b, at, b.count) { return p }
                break
            }
            if let p = textProblem(b, at, open) { return p }
            if depth == 0, !(at..<open).allSatisfy({ isSpace(b[$0]) }) { return "text outside the root element" }
            guard let close = index(of: gt, in: b, from: open, to: b.count) else { return "unterminated tag" }
            var tagStart = open + 1, tagEnd = close
            at = close + 1
            if tagStart < tagEnd, b[tagStart] == slash {
                let name = text(b, tagStart + 1, tagEnd)
                guard elements.contains(name) else { return "closing tag </\(name.prefix(20))>" }
                depth -= 1
                if depth < 0 { return "unbalanced closing tag" }
                continue
            }
            if tagStart < tagEnd, b[tagStart] == UInt8(ascii: "!") || b[tagStart] == UInt8(ascii: "?") {
                return "a comment, DOCTYPE, CDATA or processing instruction"
            }
            let selfClosing = tagStart < tagEnd && b[tagEnd - 1] == slash
            if selfClosing { tagEnd -= 1 }
            var nameEnd = tagStart
            while nameEnd < tagEnd, !isSpace(b[nameEnd]) { nameEnd += 1 }
            let name = text(b, tagStart, nameEnd)
            guard elements.contains(name) else { return "element <\(name.prefix(20))>" }
            if depth == 0 {
                guard name == "svg", roots == 0 else { return "more than one root element, or a root other than <svg>" }
                roots += 1
            }
            tagStart = nameEnd
            if let p = attributeProblem(b, tagStart, tagEnd, element: name) { return p }
            if !selfClosing { depth += 1 }
        }
        return depth == 0 && roots == 1 ? nil : "unbalanced elements"
    }

    /// Attributes `name="value"` separated by spaces or line feeds, in `b[from..<to]`.
    static func attributeProblem(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, element: String) -> String? {
        var at = from
        var sawNamespace = false
        while true {
            while at < to, b[at] == UInt8(ascii: " ") || b[at] == UInt8(ascii: "\n") { at += 1 }
            if at == to { break }
            guard let eq = index(of: UInt8(ascii: "="), in: b, from: at, to: to) else { return "malformed attribute" }
            let name = text(b, at, eq)
            guard attributes.contains(name) else { return "attribute \(name.prefix(20))" }
            at = eq + 1
            guard at < to, b[at] == quote else { return "unquoted attribute \(name)" }
            at += 1
            guard let close = index(of: quote, in: b, from: at, to: to) else { return "unterminated attribute \(name)" }
            let valueStart = at
            at = close + 1
            if name == "xmlns" {
                let value = text(b, valueStart, close)
                guard value == namespace, element == "svg" else { return "namespace \(value.prefix(40))" }
                sawNamespace = true
                continue
            }
            if (valueStart..<close).contains(where: { b[$0] == lt || b[$0] == gt || b[$0] == UInt8(ascii: ":") })
                || containsURL(b, valueStart, close) {
                return "attribute \(name) holds markup, a colon or url()"
            }
            if let p = textProblem(b, valueStart, close) { return p }
        }
        if element == "svg" && !sawNamespace { return "the root is not in the SVG namespace" }
        return nil
    }

    /// Character data in `b[from..<to]`: `&` only as one of the five predefined entities, no `>`.
    static func textProblem(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String? {
        if index(of: gt, in: b, from: from, to: to) != nil { return "a stray >" }
        var at = from
        while let amp = index(of: UInt8(ascii: "&"), in: b, from: at, to: to) {
            guard entities.contains(where: { b[amp..<to].starts(with: $0) }) else {
                return "an entity other than the predefined ones"
            }
            at = amp + 1
        }
        return nil
    }

    /// Whether `b[from..<to]` holds `url(` in any case of its ASCII letters.
    static func containsURL(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var i = from
        while i + 4 <= to {
            if b[i] | 0x20 == UInt8(ascii: "u"), b[i + 1] | 0x20 == UInt8(ascii: "r"), b[i + 2] | 0x20 == UInt8(ascii: "l"),
               b[i + 3] == UInt8(ascii: "(") { return true }
            i += 1
        }
        return false
    }

    static func index(of byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        b[from..<to].firstIndex(of: byte)
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    static func text(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self)
    }
}
