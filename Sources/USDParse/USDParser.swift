import SceneModel

/// The parser's front door: sniff the format, open the package or layer, compose the stage and
/// (optionally) build the neutral `Scene`. Pure: bytes in, values out, no IO.
public enum USDParser {
    /// The result of opening a stage.
    public struct OpenedStage: Sendable {
        public var stage: UsdStage
        /// `usdz`, `usdc` or `usda` (the container or root layer format).
        public var format: USDParseError.Format
        /// Warnings of the container (zip alignment, deflated entries, …).
        public var containerWarnings: [String]
        /// Resolves asset paths and loads their bytes (the package, or the loose file and its
        /// siblings).
        public var provider: any AssetProvider
    }

    /// Sniffs the format from the first bytes: zip (`PK\3\4` or an empty archive), crate magic, `#usda`.
    public static func detectFormat(_ view: ByteView) -> USDParseError.Format {
        if view.hasPrefix([0x50, 0x4B, 0x03, 0x04]) || view.hasPrefix([0x50, 0x4B, 0x05, 0x06]) { return .usdz }
        if CrateReader.isCrate(view) { return .usdc }
        if USDAParser.isUSDA(view) { return .usda }
        return .unknown
    }

    /// Opens and composes the stage in `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the whole input file (owned by the returned values; not copied for stored entries).
    ///   - name: the file name (identifier of a loose root layer; used in messages).
    ///   - siblings: for a loose `.usda`/`.usdc`, where referenced sibling files are found
    ///     (nil: references to other files stay unresolved, with a warning).
    /// - Throws: `USDParseError`: `USD_LIMIT_EXCEEDED` when the input exceeds
    ///   `limits.maxInputBytes`; `USD_UNRECOGNIZED_FORMAT`; any code of the container, layer
    ///   readers and composition.
    public static func openStage(
        _ bytes: [UInt8], name: String, limits: ParseLimits = .default, budget: MemoryBudget? = nil,
        siblings: (any AssetProvider)? = nil
    ) throws -> OpenedStage {
        guard bytes.count <= limits.maxInputBytes else {
            throw USDParseError(.limitExceeded, "input is \(bytes.count) bytes; maxInputBytes is \(limits.maxInputBytes)")
        }
        return try openStage(ByteView(bytes), name: name, limits: limits, budget: budget, siblings: siblings)
    }

    /// Opens and composes the stage in `view` (for example a read-only file mapping, which the
    /// returned values keep alive). Throws as the `[UInt8]` variant.
    public static func openStage(
        _ view: ByteView, name: String, limits: ParseLimits = .default, budget: MemoryBudget? = nil,
        siblings: (any AssetProvider)? = nil
    ) throws -> OpenedStage {
        guard view.count <= limits.maxInputBytes else {
            throw USDParseError(.limitExceeded, "input is \(view.count) bytes; maxInputBytes is \(limits.maxInputBytes)")
        }
        let budget = budget ?? MemoryBudget(limits: limits)
        let format = detectFormat(view)
        switch format {
        case .usdz:
            let package = try USDZPackage.open(view, limits: limits, budget: budget, name: name)
            let stage = try StageComposer.compose(
                rootLayer: package.rootLayerPath, provider: package, limits: limits, budget: budget)
            return OpenedStage(stage: stage, format: .usdz, containerWarnings: package.warnings, provider: package)
        case .usdc, .usda:
            let provider = LooseFileProvider(name: name, view: view, siblings: siblings)
            let stage = try StageComposer.compose(rootLayer: name, provider: provider, limits: limits, budget: budget)
            return OpenedStage(stage: stage, format: format, containerWarnings: [], provider: provider)
        case .unknown:
            throw USDParseError(
                .unrecognizedFormat, "\(name) is not a USDZ package, a USDC crate or a USDA layer",
                byteOffset: 0)
        }
    }

    /// Opens the stage and converts it into a `Scene` (metres, +Y up).
    /// - Throws: every code of `openStage`, and `USD_LIMIT_EXCEEDED` when the scene would exceed
    ///   `limits.maxTriangles`.
    public static func parseScene(
        _ bytes: [UInt8], name: String, limits: ParseLimits = .default, siblings: (any AssetProvider)? = nil
    ) throws -> (scene: Scene, opened: OpenedStage) {
        let budget = MemoryBudget(limits: limits)
        let opened = try openStage(bytes, name: name, limits: limits, budget: budget, siblings: siblings)
        let provider = opened.provider
        var scene = try SceneBuilder.build(
            stage: opened.stage, sourceFormat: opened.format.rawValue, limits: limits, budget: budget,
            loadAsset: { path, layer in
                guard let resolved = provider.resolve(path, anchor: layer) else { return nil }
                return try? provider.data(at: resolved).array
            })
        for w in opened.containerWarnings {
            scene.warnings.append(SceneWarning(code: "USD_CONTAINER_WARNING", message: w))
        }
        for w in opened.stage.warnings {
            scene.warnings.append(SceneWarning(code: w.code, message: w.message, primPath: w.path))
        }
        return (scene, opened)
    }
}

/// A loose root layer plus (optionally) the files beside it.
struct LooseFileProvider: AssetProvider {
    let name: String
    let view: ByteView
    let siblings: (any AssetProvider)?

    func resolve(_ assetPath: String, anchor: String) -> String? {
        if let p = PackagePathRules.anchoredPath(assetPath, anchor: anchor), p == name { return name }
        return siblings?.resolve(assetPath, anchor: anchor)
    }

    func data(at path: String) throws -> ByteView {
        if path == name { return view }
        guard let siblings else { throw USDParseError(.noRootLayer, "no file named \(path)") }
        return try siblings.data(at: path)
    }
}
