/// Package-relative path syntax (`outer.usdz[inner/path]`, nestable, `\[` `\]` escaping literal
/// brackets) and the path arithmetic of usd-format.md 12.4.
enum PackagePath {
    /// Splits `outer[inner]` at the first unescaped `[` whose matching `]` is the last character.
    /// Returns the unescaped outer path and the inner path as written (it may itself be nested).
    /// Nil when `path` is not package-relative.
    static func split(_ path: String) -> (outer: String, inner: String)? {
        let chars = Array(path.unicodeScalars)
        guard chars.count >= 3, chars[chars.count - 1] == "]", chars[chars.count - 2] != "\\" else { return nil }
        var open: Int?
        var depth = 0
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\\" {
                i += 2
                continue
            }
            if c == "[" {
                if open == nil { open = i }
                depth += 1
            } else if c == "]", open != nil {
                depth -= 1
                if depth == 0 {
                    guard i == chars.count - 1 else { return nil }
                    break
                }
            }
            i += 1
        }
        guard let o = open, depth == 0, o > 0, o + 1 < chars.count - 1 else { return nil }
        let outer = String(String.UnicodeScalarView(chars[0..<o]))
        let inner = String(String.UnicodeScalarView(chars[(o + 1)..<(chars.count - 1)]))
        return (unescape(outer), inner)
    }

    /// `outer[inner]`, escaping brackets in `outer`; `inner` must already be a package path.
    static func join(_ outer: String, _ inner: String) -> String { escape(outer) + "[" + inner + "]" }

    /// `inner` placed inside the innermost brackets of `package`, the way OpenUSD nests package
    /// paths: `a.usdz` + `b.usdz` → `a.usdz[b.usdz]`, `a.usdz[b.usdz]` + `c.usda` →
    /// `a.usdz[b.usdz[c.usda]]`. `package` is in path form (brackets of file names escaped); an
    /// empty `package` gives `inner` unchanged.
    static func nest(_ inner: String, in package: String) -> String {
        guard !package.isEmpty else { return inner }
        guard let (outer, rest) = split(package) else { return package + "[" + inner + "]" }
        return join(outer, nest(inner, in: rest))
    }

    static func escape(_ s: String) -> String {
        guard s.contains("[") || s.contains("]") else { return s }
        var out = ""
        for c in s.unicodeScalars {
            if c == "[" || c == "]" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return out
    }

    static func unescape(_ s: String) -> String {
        guard s.contains("\\") else { return s }
        var out = ""
        var escaping = false
        for c in s.unicodeScalars {
            if !escaping, c == "\\" {
                escaping = true
                continue
            }
            escaping = false
            out.unicodeScalars.append(c)
        }
        return out
    }

    /// The directory part of a package path (`a/b/c.usda` → `a/b`, `c.usda` → empty).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// `directory/path` with empty and `.` segments dropped and `..` popping a segment. Nil when a
    /// `..` would climb above the package root, or when nothing remains.
    static func normalize(_ path: String, in directory: String) -> String? {
        var parts: [Substring] = directory.split(separator: "/").filter { $0 != "." }
        guard !parts.contains("..") else { return nil }
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
                continue
            }
            parts.append(segment)
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// True for anchored relative paths: `./x`, `../x`, `.` and `..`.
    static func isAnchored(_ path: String) -> Bool {
        path == "." || path == ".." || path.hasPrefix("./") || path.hasPrefix("../")
    }

    /// True for paths that name something outside any package: absolute paths (`/x`, `\x`,
    /// `C:\x`, `C:/x`) and URIs (`scheme:…`, including `file:` and `http://`).
    static func isOutside(_ path: String) -> Bool {
        guard let first = path.unicodeScalars.first else { return false }
        if first == "/" || first == "\\" { return true }
        // A scheme: a letter, then letters, digits, `+`, `-` or `.`, then `:`, before any `/` or `[`.
        guard isASCIILetter(first) else { return false }
        for c in path.unicodeScalars.dropFirst() {
            if c == ":" { return true }
            if isASCIILetter(c) || (c >= "0" && c <= "9") || c == "+" || c == "-" || c == "." { continue }
            return false
        }
        return false
    }

    /// The lowercased extension after the last `.` of the last segment (empty when none).
    static func fileExtension(_ path: String) -> String {
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...]).lowercased()
    }

    private static func isASCIILetter(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z")
    }
}
