/// Parses the text of a path into `SdfPathNode`s, one per element: `/A/B`, `/A{set=sel}B.attr`,
/// `/A.rel[/Target.x]`, relative `../Sib`, `Child`, `.attr`. Brackets may hold any text (a target
/// path with its own `/`, `.`, `{}` and nested brackets); a selection `{set=sel}` holds no braces
/// and has an `=`. Text that does not follow this grammar (an empty name as in `/A//B` or `/A/`, a
/// second `.` after a property, unbalanced brackets) becomes one opaque node holding it verbatim,
/// so it still spells and compares as that text.
enum SdfPathParser {
    private static let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
    private static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")

    /// The node of `text`, nil for the empty path.
    static func parse(_ text: String) -> SdfPathNode? {
        if text.isEmpty { return nil }
        if text == "/" { return .root }
        let bytes = Array(text.utf8)
        return elements(bytes) ?? SdfPathNode(opaque: text)
    }

    /// True for bytes that end a prim or property name.
    private static func isDelimiter(_ b: UInt8) -> Bool {
        b == slash || b == dot || b == openBrace || b == closeBrace || b == openBracket || b == closeBracket
    }

    private static func text(_ b: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: b[range], as: UTF8.self)
    }

    /// End of the name starting at `i` (the first delimiter or the end).
    private static func nameEnd(_ b: [UInt8], from i: Int) -> Int {
        var j = i
        while j < b.count, !isDelimiter(b[j]) { j += 1 }
        return j
    }

    private static func elements(_ b: [UInt8]) -> SdfPathNode? {
        var i = 0
        var node = SdfPathNode.root
        if b[0] == slash {
            i = 1
        } else {
            node = .relativeRoot
            // Leading `./` and `..` segments; the `/` before a name is left to the loop below.
            while i < b.count {
                let rest = b.count - i
                if rest >= 2, b[i] == dot, b[i + 1] == slash {
                    i += 2
                } else if rest >= 2, b[i] == dot, b[i + 1] == dot, rest == 2 || b[i + 2] == slash {
                    node = SdfPathNode(node, "..", .parentReference)
                    i += 2
                    guard i + 2 < b.count, b[i + 1] == dot, b[i + 2] == dot else { break }
                    i += 1  // the `/` before another `..`
                } else {
                    break
                }
            }
            if i == b.count { return node.kind == .relativeRoot ? nil : node }
        }
        while i < b.count {
            switch b[i] {
            case openBrace:
                guard node.kind == .prim || node.kind == .variant else { return nil }
                var j = i + 1
                var hasEquals = false
                while j < b.count, b[j] != closeBrace {
                    if b[j] == openBrace { return nil }
                    if b[j] == UInt8(ascii: "=") { hasEquals = true }
                    j += 1
                }
                guard j < b.count, hasEquals else { return nil }
                node = SdfPathNode(node, text(b, i..<(j + 1)), .variant)
                i = j + 1
            case openBracket:
                guard node.kind == .property else { return nil }
                var j = i + 1
                var depth = 1
                while j < b.count {
                    if b[j] == openBracket { depth += 1 }
                    if b[j] == closeBracket {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    j += 1
                }
                guard j < b.count else { return nil }
                node = SdfPathNode(node, text(b, i..<(j + 1)), .target)
                i = j + 1
            case dot:
                switch node.kind {
                case .prim, .variant, .target, .relativeRoot, .parentReference: break
                default: return nil
                }
                let end = nameEnd(b, from: i + 1)
                guard end > i + 1, end == b.count || b[end] == openBracket else { return nil }
                node = SdfPathNode(node, text(b, (i + 1)..<end), .property)
                i = end
            case slash:
                guard node.kind == .prim || node.kind == .parentReference else { return nil }
                let end = nameEnd(b, from: i + 1)
                guard end > i + 1 else { return nil }
                node = SdfPathNode(node, text(b, (i + 1)..<end), .prim)
                i = end
            case closeBrace, closeBracket:
                return nil
            default:
                guard node.kind == .root || node.kind == .relativeRoot || node.kind == .variant else { return nil }
                let end = nameEnd(b, from: i)
                node = SdfPathNode(node, text(b, i..<end), .prim)
                i = end
            }
        }
        return node
    }
}
