extension USDZPackage {
    /// The layer composition opens for `path`, a package path returned by `resolve`.
    ///
    /// A path naming a `.usdz` entry (`inner.usdz`, or `inner.usdz[deeper.usdz]` further in) names
    /// that package, whose layer is its root layer, as in OpenUSD: the result is the root layer's
    /// package path (`inner.usdz[root.usda]`), so asset paths authored in it resolve inside the
    /// nested package. Any other path is returned unchanged. Which format a path has is decided by
    /// its extension, as in OpenUSD: a `.usdz` entry that is not a zip archive is an error, a zip
    /// archive under another name is read as a layer (and refused there).
    ///
    /// - Throws: `USDParseError` (format `.usdz`) naming the nested package in package path form
    ///   (`outer.usdz[inner.usdz]` when the package was opened with a name): `USD_LIMIT_EXCEEDED`
    ///   past `limits.maxPackageDepth`; every code of `ZipArchive.init` for a nested package that
    ///   is not a valid zip archive; `USD_NO_ROOT_LAYER` when its first entry is not a USD layer.
    public func layerPath(for path: String) throws(USDParseError) -> String {
        if archive.entry(named: path) != nil {
            guard PackagePath.fileExtension(path) == "usdz" else { return path }
            let package = try nested(path)
            if !package.rootLayerPath.isEmpty { return PackagePath.join(path, package.rootLayerPath) }
            do throws(USDParseError) {
                return PackagePath.join(path, try package.findRootLayer())
            } catch {
                throw Self.naming(error, package: nestedName(path))
            }
        }
        if let (outer, inner) = PackagePath.split(path), PackagePath.fileExtension(outer) == "usdz",
           archive.entry(named: outer) != nil
        {
            return PackagePath.join(outer, try nested(outer).layerPath(for: inner))
        }
        return path
    }
}
