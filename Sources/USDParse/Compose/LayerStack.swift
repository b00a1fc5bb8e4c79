/// A root layer and its sublayers, strongest first, each with the time offset that maps its times
/// into the root layer's time.
struct LayerStack {
    struct Member {
        var layer: Int  // index into LayerCache.layers
        var offset: SdfLayerOffset
    }
    /// Identifier of the root layer of this stack.
    var rootIdentifier: String
    var members: [Member]
}

extension SdfLayerOffset {
    /// The offset equivalent to applying `inner` first, then `self`.
    func composed(with inner: SdfLayerOffset) -> SdfLayerOffset {
        SdfLayerOffset(offset: offset + scale * inner.offset, scale: scale * inner.scale)
    }

    func apply(_ t: Double) -> Double { offset + scale * t }
}

/// Opens and caches every layer a stage needs, and builds layer stacks (sublayers).
final class LayerCache {
    private(set) var layers: [SdfLayer] = []
    private var byIdentifier: [String: Int] = [:]
    private var stacks: [String: LayerStack] = [:]
    let provider: any AssetProvider
    let limits: ParseLimits
    let budget: MemoryBudget
    var warnings: [StageWarning] = []

    init(provider: any AssetProvider, limits: ParseLimits, budget: MemoryBudget) {
        self.provider = provider
        self.limits = limits
        self.budget = budget
    }

    /// Parses (once) the layer at provider path `identifier`.
    func layer(_ identifier: String) throws -> Int {
        if let i = byIdentifier[identifier] { return i }
        guard layers.count < limits.maxLayers else {
            throw USDParseError(.limitExceeded, "more than maxLayers (\(limits.maxLayers)) layers", layer: identifier)
        }
        let view: ByteView
        do { view = try provider.data(at: identifier) } catch let e as USDParseError {
            throw e.adding(layer: identifier)
        }
        let layer = try LayerDecoder.decode(view, identifier: identifier, limits: limits, budget: budget)
        for w in layer.warnings { warnings.append(StageWarning(code: "USD_LAYER_WARNING", message: w, path: identifier)) }
        layers.append(layer)
        byIdentifier[identifier] = layers.count - 1
        return layers.count - 1
    }

    /// The layer stack rooted at `requested` (the layer plus its sublayers, recursively,
    /// strongest first; a package path opens the package's root layer, see
    /// `AssetProvider.layerPath(for:)`). Sublayer cycles throw `USD_COMPOSITION_CYCLE`.
    func stack(_ requested: String) throws -> LayerStack {
        if let s = stacks[requested] { return s }
        let identifier = try layerPath(requested)
        if let s = stacks[identifier] {
            stacks[requested] = s
            return s
        }
        var members: [LayerStack.Member] = []
        var seen: Set<String> = []
        try collect(identifier, offset: .identity, chain: [], members: &members, seen: &seen)
        let s = LayerStack(rootIdentifier: identifier, members: members)
        stacks[identifier] = s
        stacks[requested] = s
        return s
    }

    /// The provider's layer path for `path`, errors naming the requested path as the layer.
    private func layerPath(_ path: String) throws -> String {
        do { return try provider.layerPath(for: path) } catch let e as USDParseError {
            throw e.adding(layer: path)
        }
    }

    private func collect(
        _ identifier: String, offset: SdfLayerOffset, chain: [String], members: inout [LayerStack.Member],
        seen: inout Set<String>
    ) throws {
        if chain.contains(identifier) {
            throw USDParseError(.compositionCycle, "sublayer cycle: \((chain + [identifier]).joined(separator: " → "))",
                                layer: identifier)
        }
        guard chain.count < limits.maxCompositionDepth else {
            throw USDParseError(.limitExceeded, "sublayers nested deeper than maxCompositionDepth", layer: identifier)
        }
        let index = try layer(identifier)
        if !seen.insert(identifier).inserted { return }  // diamond: keep the strongest position
        members.append(.init(layer: index, offset: offset))
        let meta = layers[index].metadata
        guard case .stringVector(let subs)? = meta["subLayers"] else { return }
        var offsets: [SdfLayerOffset] = []
        if case .layerOffsetVector(let o)? = meta["subLayerOffsets"] { offsets = o }
        for (i, sub) in subs.enumerated() {
            guard let resolved = provider.resolve(sub, anchor: identifier) else {
                warnings.append(StageWarning(code: "USD_SUBLAYER_UNRESOLVED", message: "cannot resolve sublayer @\(sub)@",
                                             path: identifier))
                continue
            }
            let o = i < offsets.count ? offsets[i] : .identity
            try collect(try layerPath(resolved), offset: offset.composed(with: o), chain: chain + [identifier], members: &members,
                        seen: &seen)
        }
    }
}

/// Sniffs the format of layer bytes and runs the matching reader.
enum LayerDecoder {
    static func decode(_ view: ByteView, identifier: String, limits: ParseLimits, budget: MemoryBudget) throws -> SdfLayer {
        if CrateReader.isCrate(view) {
            return try CrateReader.read(view, identifier: identifier, limits: limits, budget: budget)
        }
        if USDAParser.isUSDA(view) {
            return try USDAParser.parse(view, identifier: identifier, limits: limits, budget: budget)
        }
        throw USDParseError(.unrecognizedFormat, "\(identifier) is neither a crate (PXR-USDC) nor a USDA (#usda) layer",
                            layer: identifier)
    }
}
