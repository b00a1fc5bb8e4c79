/// Where composition finds the layers and assets an asset path names. A USDZ package is one
/// provider; the worker supplies a directory-backed one for loose files. Implementations must
/// refuse paths that leave their sandbox (return nil from `resolve`).
public protocol AssetProvider: Sendable {
    /// Resolves `assetPath` as authored in the layer or asset at `anchor` (a provider path) to a
    /// provider path, or nil when it cannot be resolved inside the provider.
    func resolve(_ assetPath: String, anchor: String) -> String?
    /// The bytes at a resolved provider path. Throws `USDParseError` (e.g. `USD_TRUNCATED`,
    /// `USD_ZIP_INVALID`) when the entry cannot be read.
    func data(at path: String) throws -> ByteView
    /// The provider path of the layer to open for `path` (a path returned by `resolve`): `path`
    /// itself, or, when it names a package, that package's root layer. Throws `USDParseError` when
    /// the package cannot be opened.
    func layerPath(for path: String) throws -> String
}

extension AssetProvider {
    /// Every path is its own layer (providers without packages).
    public func layerPath(for path: String) throws -> String { path }
}


/// An in-memory provider: a flat map from normalised relative paths to bytes. Paths resolve
/// relative to the anchor's directory; `..` may not climb above the root.
public struct InMemoryAssetProvider: AssetProvider, Sendable {
    public var files: [String: [UInt8]]

    public init(files: [String: [UInt8]]) { self.files = files }

    public func resolve(_ assetPath: String, anchor: String) -> String? {
        guard let p = PackagePathRules.anchoredPath(assetPath, anchor: anchor) else { return nil }
        return files[p] != nil ? p : nil
    }

    public func data(at path: String) throws -> ByteView {
        guard let bytes = files[path] else {
            throw USDParseError(.noRootLayer, "no file named \(path)")
        }
        return ByteView(bytes)
    }
}

/// Path arithmetic shared by providers: anchored and search-relative paths against an anchor.
public enum PackagePathRules {
    /// Normalises `dir(anchor)/assetPath` (drops `.` and empty segments, pops on `..`). Returns nil
    /// for empty, absolute (`/x`, `C:\x`) and URI (`scheme:`) paths, and for paths that climb above
    /// the root.
    public static func anchoredPath(_ assetPath: String, anchor: String) -> String? {
        guard !assetPath.isEmpty, !assetPath.hasPrefix("/"), !assetPath.contains("\\") else { return nil }
        if let colon = assetPath.firstIndex(of: ":"), !assetPath[..<colon].contains("/") { return nil }
        var parts: [Substring] = []
        if let slash = anchor.lastIndex(of: "/") {
            parts = anchor[..<slash].split(separator: "/")
        }
        for seg in assetPath.split(separator: "/", omittingEmptySubsequences: true) {
            if seg == "." { continue }
            if seg == ".." {
                if parts.isEmpty { return nil }
                parts.removeLast()
                continue
            }
            parts.append(seg)
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
