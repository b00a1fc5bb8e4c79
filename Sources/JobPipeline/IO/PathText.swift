/// File-path text as the job child needs it, on `/`-separated paths (no Foundation path types).
enum PathText {
    /// `path` without trailing slashes (a path of slashes alone stays `/`).
    private static func trimmed(_ path: String) -> Substring {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        return p
    }

    /// The last component: `a/b.usdz` → `b.usdz`, `b.usdz` → `b.usdz`, `/` → `/`.
    static func lastComponent(_ path: String) -> String {
        let p = trimmed(path)
        guard p != "/", let slash = p.lastIndex(of: "/") else { return String(p) }
        return String(p[p.index(after: slash)...])
    }

    /// The path without its last component: `a/b.usdz` → `a`, `/b.usdz` → `/`, `b.usdz` → ``.
    static func parent(_ path: String) -> String {
        let p = trimmed(path)
        guard p != "/", let slash = p.lastIndex(of: "/") else { return p == "/" ? "/" : "" }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    /// The name without its extension: `orbit-01.webp` → `orbit-01`; a leading dot is not one
    /// (`.hidden` stays).
    static func deletingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, !name[dot...].contains("/") else { return name }
        return String(name[..<dot])
    }
}
