/// A `.usdz` package: a validated `ZipArchive`, its root layer, and asset-path resolution inside it.
///
/// Root layer rule (what usd-core 26.11 does with the corpus, USD_CORE_ANALYSIS.json): USD opens
/// the **first** entry (lowest local-header offset) and nothing else.
/// - First entry `.usda`, `.usdc` or `.usd` (case-insensitive): that entry is the root layer
///   (e.g. `openusd_badExtension_arkit.usdz`, root `badExtension_arkit.usd`).
/// - First entry `.usdz`: a nested package whose own root layer is the root, written
///   `inner.usdz[root.usd]` (`nested_anchored_refs.usdz` opens as `anchored_refs.usdz[root.usd]`).
///   Each level counts against `ParseLimits.maxPackageDepth`.
/// - Anything else, or no entry at all: `USD_NO_ROOT_LAYER`, even when a later entry is a USD layer
///   (usd-core fails to open `openusd_alembic.usdz`, first entry `alembic.abc`, and
///   `openusd_zip_no_usd_layer_test_reader.usdz`, first entry `a.test`).
///
/// Ownership: the package keeps the archive's `ByteView` (stored entries are zero-copy slices) and
/// a reference to the parse's `MemoryBudget`, charged when deflated entries are inflated. Nested
/// packages share that budget and are opened once per parse (`NestedPackageCache`), so a deflated
/// package inside a package is inflated and charged once however often it is reached.
public struct USDZPackage: Sendable {
    /// The outermost archive of this package.
    public let archive: ZipArchive
    /// Nesting level: 0 for the outermost package, 1 for a package inside it, …
    public let depth: Int
    /// Package path of the root layer (possibly nested, e.g. `inner.usdz[root.usda]`); empty only
    /// for packages opened internally for asset access, never for `open`.
    public private(set) var rootLayerPath: String
    /// How messages name this package: the opened file's name (brackets escaped; empty when not
    /// given) for the outermost package, `outer.usdz[inner.usdz]` for a package stored in it,
    /// `outer.usdz[inner.usdz[deeper.usdz]]` one level further (OpenUSD's package path form).
    public let name: String
    let limits: ParseLimits
    let nestedPackages = NestedPackageCache()
    let budget: BudgetReference
    /// Lowercased entry name → the first entry (local-header order) with that spelling.
    private let foldedNames: [String: String]

    private init(archive: ZipArchive, depth: Int, name: String, limits: ParseLimits, budget: BudgetReference) {
        self.archive = archive
        self.name = name
        self.depth = depth
        self.limits = limits
        self.budget = budget
        self.rootLayerPath = ""
        var folded: [String: String] = [:]
        for e in archive.entries where folded[e.name.lowercased()] == nil { folded[e.name.lowercased()] = e.name }
        self.foldedNames = folded
    }

    /// Opens a package; `depth` is the nesting level (0 for the outermost); `name` is the file name
    /// used in messages about packages stored inside this one.
    ///
    /// - Throws: `USDParseError` (format `.usdz`): every code of `ZipArchive.init`;
    ///   `USD_LIMIT_EXCEEDED` when `depth` exceeds `limits.maxPackageDepth` (also reached by a
    ///   package whose first entry nests packages too deeply, or contains itself);
    ///   `USD_NO_ROOT_LAYER` when the first entry is not a USD layer or nested package (see the
    ///   type's documentation); errors reading a nested root package.
    public static func open(
        _ view: ByteView, limits: ParseLimits, budget: MemoryBudget, depth: Int = 0, name: String = ""
    ) throws(USDParseError) -> USDZPackage {
        var package = try container(
            view, limits: limits, budget: BudgetReference(budget), depth: depth, name: PackagePath.escape(name))
        package.rootLayerPath = try package.findRootLayer()
        return package
    }

    /// Opens the archive without choosing a root layer (used for nested packages reached by path).
    static func container(
        _ view: ByteView, limits: ParseLimits, budget: BudgetReference, depth: Int, name: String = ""
    ) throws(USDParseError) -> USDZPackage {
        guard depth >= 0, depth <= limits.maxPackageDepth else {
            throw .zip(.limitExceeded,
                       "package nesting depth \(depth) exceeds maxPackageDepth (\(limits.maxPackageDepth))")
        }
        let archive = try ZipArchive(view, limits: limits, budget: budget.budget)
        return USDZPackage(archive: archive, depth: depth, name: name, limits: limits, budget: budget)
    }

    /// Entry names in local-header order.
    public var entryNames: [String] { archive.entries.map(\.name) }

    /// Archive warnings (see `ZipArchive`), then those of every nested package opened so far (the
    /// root's, and those composition or asset access reached), in the order they were opened, each
    /// suffixed with the nested package's entry name (`… (in inner.usdz)`). Read it after
    /// composing to see them all.
    public var warnings: [String] {
        archive.warnings + nestedPackages.opened.flatMap { entry, package in
            package.warnings.map { "\($0) (in \(ZipNameValidator.printable(entry)))" }
        }
    }

    /// True when `path` (possibly nested: `inner.usdz[dir/file.usda]`) names an entry.
    public func contains(_ path: String) -> Bool { locate(path) != nil }

    /// Bytes of the entry at `path` (a package path as returned by `resolve` or `rootLayerPath`).
    ///
    /// Nested package paths open the inner package at `depth + 1`; its entry must end in `.usdz`.
    /// Stored entries are zero-copy slices; deflated ones are inflated (see `ZipArchive.data(of:)`).
    ///
    /// - Throws: `USD_NO_ROOT_LAYER` when no entry has that path (the convention shared with the
    ///   other asset providers); `USD_LIMIT_EXCEEDED` past `limits.maxPackageDepth` (a package that
    ///   contains itself ends here); every code of `ZipArchive.init` and `ZipArchive.data(of:)` for
    ///   the entries and nested archives on the way. Errors carry format `.usdz` and the path.
    public func data(at path: String) throws(USDParseError) -> ByteView {
        if let entry = archive.entry(named: path) { return try archive.data(of: entry) }
        if let (outer, inner) = PackagePath.split(path), PackagePath.fileExtension(outer) == "usdz",
           archive.entry(named: outer) != nil
        {
            do throws(USDParseError) {
                return try nested(outer).data(at: inner)
            } catch {
                throw error.adding(format: .usdz, section: ZipNameValidator.printable(path))
            }
        }
        if let entry = archive.entry(named: PackagePath.unescape(path)) { return try archive.data(of: entry) }
        throw .zip(.noRootLayer, "the package has no entry named '\(ZipNameValidator.printable(path))'",
                   entry: ZipNameValidator.printable(path))
    }

    /// The package stored in entry `entryName`, one level deeper, with its root layer when it has
    /// one; opened once and cached (errors too).
    ///
    /// - Throws: `USD_NO_ROOT_LAYER` when there is no such entry; `USD_LIMIT_EXCEEDED` past
    ///   `limits.maxPackageDepth`; every code of `ZipArchive.init` and `ZipArchive.data(of:)`. The
    ///   error's section (when the inner error has none) and message name the nested package in
    ///   package path form (`outer.usdz[inner.usdz]`).
    func nested(_ entryName: String) throws(USDParseError) -> USDZPackage {
        guard let entry = archive.entry(named: entryName) else {
            throw .zip(.noRootLayer, "the package has no entry named '\(ZipNameValidator.printable(entryName))'",
                       entry: ZipNameValidator.printable(entryName))
        }
        let childName = nestedName(entryName)
        return try nestedPackages.package(entryName) { () throws(USDParseError) -> USDZPackage in
            do throws(USDParseError) {
                let bytes = try archive.data(of: entry)
                var inner = try USDZPackage.container(
                    bytes, limits: limits, budget: budget, depth: depth + 1, name: childName)
                // The root only serves search-path fallback inside the nested package; a nested
                // package without a USD first entry is still readable by path, as in USD.
                if let root = try? inner.findRootLayer() { inner.rootLayerPath = root }
                return inner
            } catch {
                throw Self.naming(error, package: childName)
            }
        }
    }

    /// The message name of the package stored in entry `entryName` (see `name`).
    func nestedName(_ entryName: String) -> String {
        PackagePath.nest(PackagePath.escape(ZipNameValidator.printable(entryName)), in: name)
    }

    /// `error` with the nested package named in its message and, when it has none, its section.
    static func naming(_ error: USDParseError, package: String) -> USDParseError {
        var e = error.adding(format: .usdz, section: package)
        if !e.message.contains(package) { e.message += " (in \(package))" }
        return e
    }

    /// The exact package path of an existing entry for `path` (raw name first, then the
    /// package-relative reading, then with escapes removed), or nil.
    func locate(_ path: String) -> String? {
        if archive.entry(named: path) != nil { return path }
        if let (outer, inner) = PackagePath.split(path), PackagePath.fileExtension(outer) == "usdz",
           archive.entry(named: outer) != nil, let pkg = try? nested(outer), let found = pkg.locate(inner)
        {
            return PackagePath.join(outer, found)
        }
        let plain = PackagePath.unescape(path)
        return archive.entry(named: plain) != nil ? plain : nil
    }

    /// Like `locate`, but entry names compare case-insensitively (first entry in local-header order).
    func locateIgnoringCase(_ path: String) -> String? {
        if let name = foldedNames[path.lowercased()] { return name }
        if let (outer, inner) = PackagePath.split(path),
           let outerName = foldedNames[outer.lowercased()], PackagePath.fileExtension(outerName) == "usdz",
           let pkg = try? nested(outerName), let found = pkg.locate(inner) ?? pkg.locateIgnoringCase(inner)
        {
            return PackagePath.join(outerName, found)
        }
        return foldedNames[PackagePath.unescape(path).lowercased()]
    }

    /// The package path of the root layer per the type's rule.
    func findRootLayer() throws(USDParseError) -> String {
        guard let first = archive.entries.first else {
            throw .zip(.noRootLayer, "the package has no entries")
        }
        let name = ZipNameValidator.printable(first.name)
        switch PackagePath.fileExtension(first.name) {
        case "usda", "usdc", "usd":
            return first.name
        case "usdz":
            do throws(USDParseError) {
                let inner = try nested(first.name)
                return PackagePath.join(first.name, try inner.findRootLayer())
            } catch {
                throw error.adding(format: .usdz, section: name)
            }
        default:
            let later = archive.entries.first { ["usda", "usdc", "usd"].contains(PackagePath.fileExtension($0.name)) }
            let hint = later.map { "; '\(ZipNameValidator.printable($0.name))' is a layer but USD opens only the first entry" }
            throw .zip(.noRootLayer, "the first entry '\(name)' is not a USD layer" + (hint ?? ""),
                       entry: name, offset: first.localHeaderOffset)
        }
    }
}

extension USDZPackage: AssetProvider {}
