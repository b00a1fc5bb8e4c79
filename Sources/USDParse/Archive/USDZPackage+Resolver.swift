extension USDZPackage {
    /// Resolves an asset path authored in the layer at `anchor` (a package path, e.g. the root
    /// layer path or a path returned earlier) to the package path of an existing entry, per
    /// usd-format.md 12.4. Never reads outside the package; returns nil when the path is:
    /// - empty;
    /// - absolute (`/x`, `\x`, `C:\x`) or a URI (`scheme:…`): outside the package;
    /// - anchored (`./x`, `../x`) and climbing above the package root (or, for an anchor inside a
    ///   nested package, above that package's root);
    /// - not found as an entry.
    ///
    /// Rules: `outer.usdz[inner]` resolves `outer.usdz` with these rules and looks `inner` up from the
    /// nested package's root. Anchored paths are `dir(anchor)/path`. Search-relative paths (any other
    /// relative path) try `dir(anchor)/path`, then `dir(rootLayer)/path` (for an anchor inside a
    /// nested package, that package's root layer). Every candidate is tried exactly first; only when
    /// none matches is a case-insensitive match accepted (content authored on case-insensitive file
    /// systems); among names differing only in case the first in local-header order wins.
    public func resolve(_ assetPath: String, anchor: String) -> String? {
        guard !assetPath.isEmpty, !PackagePath.isOutside(assetPath) else { return nil }
        // An anchor inside a nested package: resolve inside that package, then re-wrap.
        if archive.entry(named: anchor) == nil, let (outer, inner) = PackagePath.split(anchor),
           PackagePath.fileExtension(outer) == "usdz", archive.entry(named: outer) != nil
        {
            guard let pkg = try? nested(outer), let found = pkg.resolve(assetPath, anchor: inner) else { return nil }
            return PackagePath.join(outer, found)
        }
        let anchorDirectory = PackagePath.directory(of: anchor)
        if let (outer, inner) = PackagePath.split(assetPath), PackagePath.fileExtension(outer) == "usdz",
           let outerPath = resolve(outer, anchor: anchor), archive.entry(named: outerPath) != nil,
           let pkg = try? nested(outerPath), let found = pkg.lookUp(inner)
        {
            return PackagePath.join(outerPath, found)
        }
        var candidates: [String] = []
        if let p = PackagePath.normalize(assetPath, in: anchorDirectory) { candidates.append(p) }
        if !PackagePath.isAnchored(assetPath), let p = PackagePath.normalize(assetPath, in: rootDirectory),
           !candidates.contains(p)
        {
            candidates.append(p)
        }
        for c in candidates where archive.entry(named: c) != nil { return c }
        for c in candidates { if let found = locateIgnoringCase(c) { return found } }
        return nil
    }

    /// Looks up a path relative to this package's root (the `inner` of `outer.usdz[inner]`),
    /// exactly, then case-insensitively.
    func lookUp(_ path: String) -> String? {
        if let found = locate(path) { return found }
        if PackagePath.split(path) == nil, let p = PackagePath.normalize(path, in: ""), let found = locate(p) {
            return found
        }
        return locateIgnoringCase(path)
    }

    /// Directory of the root layer for search-path fallback; the package root when the root layer
    /// lives in a nested package (it is searched from inside that package instead).
    var rootDirectory: String {
        PackagePath.split(rootLayerPath) == nil ? PackagePath.directory(of: rootLayerPath) : ""
    }
}
