/// The composed stage: every prim of the root layer stack after references, payloads, inherits,
/// specializes, variants and instancing are applied, in depth-first pre-order. Paths are in the
/// stage's namespace (targets and connections inside referenced subtrees are re-mapped).
public struct UsdStage: Sendable {
    /// Prims in pre-order. Index 0 is the pseudo-root `/`.
    public var prims: [UsdPrim]
    /// Root layer metadata (pseudo-root fields of the root layer, sublayers merged weaker).
    public var metadata: [String: SdfValue]
    /// Identifiers of every layer that was opened, root first.
    public var layerIdentifiers: [String]
    /// Non-fatal findings (unresolved references, skipped arcs, …) with stable codes.
    public var warnings: [StageWarning]

    public init(prims: [UsdPrim], metadata: [String: SdfValue], layerIdentifiers: [String], warnings: [StageWarning]) {
        self.prims = prims
        self.metadata = metadata
        self.layerIdentifiers = layerIdentifiers
        self.warnings = warnings
        for (i, p) in prims.enumerated() { index[p.path] = i }
    }

    private var index: [SdfPath: Int] = [:]

    /// The prim at `path`, if any.
    public func prim(at path: SdfPath) -> UsdPrim? { index[path].map { prims[$0] } }

    /// Index of the prim at `path` in `prims`.
    public func primIndex(at path: SdfPath) -> Int? { index[path] }

    /// `upAxis` metadata (nil when not authored; UsdGeom's fallback is Y).
    public var upAxis: String? { metadata["upAxis"]?.token }

    /// `metersPerUnit` metadata, read leniently (double, float or integer); nil when not authored.
    public var metersPerUnit: Double? { metadata["metersPerUnit"]?.double }

    /// `defaultPrim` metadata without a leading `/`.
    public var defaultPrim: String? {
        guard var s = metadata["defaultPrim"]?.token, !s.isEmpty else { return nil }
        if s.hasPrefix("/") { s.removeFirst() }
        return s
    }
}

/// A stage-level warning with a stable code.
public struct StageWarning: Hashable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var path: String?

    public init(code: String, message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { path.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)" }
}

/// One composed prim.
public struct UsdPrim: Sendable {
    public var path: SdfPath
    /// Index of the parent in `UsdStage.prims` (nil for the pseudo-root).
    public var parent: Int?
    /// Indices of the children in `UsdStage.prims`, in composed order.
    public var children: [Int]
    /// Schema type name (`Mesh`, `Xform`, …); empty when typeless.
    public var typeName: String
    public var specifier: SdfSpecifier
    /// Composed prim metadata: strongest opinion per field (`kind`, `active`, `instanceable`,
    /// `apiSchemas`, `purpose` is an attribute, not here). `customData` and `assetInfo` are merged
    /// dictionaries (stronger keys win).
    public var metadata: [String: SdfValue]
    /// The `customData` of the root prim of every layer this prim references or payloads, one
    /// entry per arc in strength order (RoomPlan element identity: `UUID`, `Category`).
    public var referencedLayerCustomData: [[String: SdfValue]]
    /// Attributes by name.
    public var attributes: [String: UsdAttribute]
    /// Relationships by name.
    public var relationships: [String: UsdRelationship]
    /// True when the prim lies inside an instance (it is a copy of a prototype's prim).
    public var isInstanceProxy: Bool

    public init(path: SdfPath, parent: Int?, typeName: String = "", specifier: SdfSpecifier = .def) {
        self.path = path
        self.parent = parent
        self.children = []
        self.typeName = typeName
        self.specifier = specifier
        self.metadata = [:]
        self.referencedLayerCustomData = []
        self.attributes = [:]
        self.relationships = [:]
        self.isInstanceProxy = false
    }

    public var name: String { path.name }

    /// `active` metadata (fallback true).
    public var isActive: Bool { metadata["active"]?.bool ?? true }

    /// `customData` as a dictionary (empty when absent).
    public var customData: [String: SdfValue] {
        if case .dictionary(let d) = metadata["customData"] { return d }
        return [:]
    }

    /// `kind` metadata, empty when absent.
    public var kind: String { metadata["kind"]?.token ?? "" }
}

/// A composed attribute: the strongest opinion for each of its fields.
public struct UsdAttribute: Sendable {
    public var name: String
    /// `typeName` as authored (`point3f[]`, `color3f`, …).
    public var typeName: String
    public var variability: SdfVariability
    /// Strongest `default` opinion (may be `.valueBlock`).
    public var defaultValue: SdfValue?
    /// Strongest `timeSamples` opinion, times already mapped through layer offsets.
    public var timeSamples: SdfTimeSamples?
    /// Composed `connectionPaths`, in the stage namespace.
    public var connections: [SdfPath]
    /// Other fields (`interpolation`, `elementSize`, `customData`, `colorSpace`, …), strongest wins.
    public var metadata: [String: SdfValue]
    /// Identifier of the layer that supplied `defaultValue` (or the time samples when there is no
    /// default). Asset paths in the value resolve relative to this layer.
    public var valueLayer: String?

    public init(name: String, typeName: String = "", variability: SdfVariability = .varying) {
        self.name = name
        self.typeName = typeName
        self.variability = variability
        self.defaultValue = nil
        self.timeSamples = nil
        self.connections = []
        self.metadata = [:]
        self.valueLayer = nil
    }

    /// The value a viewer uses: the default, else the earliest time sample. `nil` when unauthored
    /// or blocked.
    public var value: SdfValue? {
        if let d = defaultValue {
            if case .valueBlock = d { return nil }
            return d.resolved
        }
        if let ts = timeSamples, let first = ts.values.first {
            if case .valueBlock = first { return nil }
            return first.resolved
        }
        return nil
    }

    /// Every deferred array this attribute holds (default and samples), for eager or parallel decoding.
    public var deferredValues: [DeferredValue] {
        var out: [DeferredValue] = []
        if case .deferred(let d)? = defaultValue { out.append(d) }
        for v in timeSamples?.values ?? [] { if case .deferred(let d) = v { out.append(d) } }
        return out
    }

    /// `interpolation` metadata (fallback `constant` for primvars).
    public var interpolation: String? { metadata["interpolation"]?.token }
}

/// A composed relationship.
public struct UsdRelationship: Sendable {
    public var name: String
    /// Composed targets in the stage namespace.
    public var targets: [SdfPath]
    public var metadata: [String: SdfValue]

    public init(name: String, targets: [SdfPath] = [], metadata: [String: SdfValue] = [:]) {
        self.name = name
        self.targets = targets
        self.metadata = metadata
    }
}
