import USDParse

/// Resolves asset paths of a loose USD file against the files beside it. Paths are relative to the
/// directory `root`; nothing outside it (absolute paths, `..` above the root, URIs, symlinks out)
/// is reachable.
public struct DirectoryAssetProvider: AssetProvider {
    public let root: String
    public let maxBytes: Int

    public init(root: String, maxBytes: Int) {
        self.root = root
        self.maxBytes = maxBytes
    }

    public func resolve(_ assetPath: String, anchor: String) -> String? {
        guard let p = PackagePathRules.anchoredPath(assetPath, anchor: anchor) else { return nil }
        let full = root + "/" + p
        guard let real = realpath(full, nil) else { return nil }
        defer { free(real) }
        guard let rootReal = realpath(root, nil) else { return nil }
        defer { free(rootReal) }
        let r = String(cString: real), base = String(cString: rootReal)
        guard r.hasPrefix(base + "/") else { return nil }
        return p
    }

    public func data(at path: String) throws -> ByteView {
        do {
            return ByteView(try FileReader.read(root + "/" + path, maxBytes: maxBytes))
        } catch let f as FileReader.Failure {
            throw USDParseError(.noRootLayer, f.message, layer: path)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
