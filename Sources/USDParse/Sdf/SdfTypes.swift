/// Sdf spec kinds (values as stored in crate SPECS).
public enum SdfSpecType: Int, Hashable, Sendable {
    case attribute = 1, connection = 2, expression = 3, mapper = 4, mapperArg = 5, prim = 6, pseudoRoot = 7,
        relationship = 8, relationshipTarget = 9, variant = 10, variantSet = 11
}

/// `def`, `over`, `class`.
public enum SdfSpecifier: Int, Hashable, Sendable { case def = 0, over = 1, `class` = 2 }

/// `public` / `private`.
public enum SdfPermission: Int, Hashable, Sendable { case `public` = 0, `private` = 1 }

/// `varying` / `uniform` (legacy `config` reads as uniform).
public enum SdfVariability: Int, Hashable, Sendable { case varying = 0, uniform = 1 }

/// Time offset and scale applied across a composition arc.
public struct SdfLayerOffset: Hashable, Sendable {
    public var offset: Double
    public var scale: Double
    public init(offset: Double = 0, scale: Double = 1) {
        self.offset = offset
        self.scale = scale
    }
    public static let identity = SdfLayerOffset()
}

/// A reference arc: `@asset@</prim>` with an offset and custom data. An empty `assetPath` is an
/// internal reference (same layer stack); an empty `primPath` targets the layer's `defaultPrim`.
public struct SdfReference: Hashable, Sendable {
    public var assetPath: String
    public var primPath: SdfPath
    public var layerOffset: SdfLayerOffset
    public var customData: [String: SdfValue]
    public init(assetPath: String, primPath: SdfPath = .empty, layerOffset: SdfLayerOffset = .identity,
                customData: [String: SdfValue] = [:]) {
        self.assetPath = assetPath
        self.primPath = primPath
        self.layerOffset = layerOffset
        self.customData = customData
    }
}

/// A payload arc (like a reference without custom data).
public struct SdfPayload: Hashable, Sendable {
    public var assetPath: String
    public var primPath: SdfPath
    public var layerOffset: SdfLayerOffset
    public init(assetPath: String, primPath: SdfPath = .empty, layerOffset: SdfLayerOffset = .identity) {
        self.assetPath = assetPath
        self.primPath = primPath
        self.layerOffset = layerOffset
    }
}

/// A list-editing operation as authored in one layer (`prepend`, `append`, `delete`, explicit…).
public struct SdfListOp<T: Hashable & Sendable>: Hashable, Sendable {
    public var isExplicit: Bool = false
    public var explicitItems: [T] = []
    public var addedItems: [T] = []
    public var prependedItems: [T] = []
    public var appendedItems: [T] = []
    public var deletedItems: [T] = []
    public var orderedItems: [T] = []

    public init() {}

    /// An explicit list (`rel r = [</a>, </b>]`, `references = @x@`).
    public init(explicit items: [T]) {
        isExplicit = true
        explicitItems = items
    }

    /// An op that prepends `items`.
    public init(prepended items: [T]) { prependedItems = items }

    /// Applies this op on top of `weaker` (the result of weaker opinions), per Sdf list-op rules.
    public func applied(to weaker: [T]) -> [T] {
        if isExplicit { return Self.dedup(explicitItems) }
        var out = weaker.filter { !deletedItems.contains($0) }
        for a in addedItems where !out.contains(a) { out.append(a) }
        if !prependedItems.isEmpty {
            let pre = Self.dedup(prependedItems)
            out.removeAll { pre.contains($0) }
            out.insert(contentsOf: pre, at: 0)
        }
        if !appendedItems.isEmpty {
            let app = Self.dedup(appendedItems)
            out.removeAll { app.contains($0) }
            out.append(contentsOf: app)
        }
        return out
    }

    /// Items in order for a viewer starting from nothing (`prepended + added + appended`, or explicit).
    public var flattened: [T] { applied(to: []) }

    private static func dedup(_ items: [T]) -> [T] {
        var seen = Set<T>()
        return items.filter { seen.insert($0).inserted }
    }
}

/// The samples of an animated attribute: ascending times, one value per time.
public struct SdfTimeSamples: Hashable, Sendable {
    public var times: [Double]
    public var values: [SdfValue]
    public init(times: [Double], values: [SdfValue]) {
        self.times = times
        self.values = values
    }
}
