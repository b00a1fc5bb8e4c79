/// A spec: its kind and its fields (field name → value). Field names are the Sdf keys exactly as a
/// crate file stores them: `specifier`, `typeName`, `primChildren`, `properties`, `default`,
/// `timeSamples`, `connectionPaths`, `targetPaths`, `variability`, `custom`, `interpolation`,
/// `elementSize`, `references`, `payload`, `inheritPaths`, `specializes`, `variantSetNames`,
/// `variantSelection`, `variantSetChildren`, `variantChildren`, `customData`, `assetInfo`, `kind`,
/// `active`, `instanceable`, `apiSchemas`, `documentation`, `comment`, and on the pseudo-root
/// `defaultPrim`, `upAxis`, `metersPerUnit`, `subLayers`, `subLayerOffsets`, `customLayerData`, ….
public struct SdfSpec: Hashable, Sendable {
    public var type: SdfSpecType
    public var fields: [String: SdfValue]

    public init(type: SdfSpecType, fields: [String: SdfValue] = [:]) {
        self.type = type
        self.fields = fields
    }

    public subscript(field: String) -> SdfValue? {
        get { fields[field] }
        set { fields[field] = newValue }
    }
}

/// One layer: specs by path. Produced identically by the crate reader and the USDA parser.
public struct SdfLayer: Hashable, Sendable {
    /// The layer's name: package-relative path inside a package, else the file name.
    public var identifier: String
    public var specs: [SdfPath: SdfSpec]
    /// Non-fatal findings while reading (skipped fields, unsupported value types…).
    public var warnings: [String]

    public init(identifier: String, specs: [SdfPath: SdfSpec] = [:], warnings: [String] = []) {
        self.identifier = identifier
        self.specs = specs
        self.warnings = warnings
    }

    public subscript(path: SdfPath) -> SdfSpec? {
        get { specs[path] }
        set { specs[path] = newValue }
    }

    /// The pseudo-root's fields (layer metadata).
    public var metadata: [String: SdfValue] { specs[.root]?.fields ?? [:] }

    /// `defaultPrim` metadata (a leading `/` is tolerated and removed).
    public var defaultPrim: String? {
        guard var s = metadata["defaultPrim"]?.token, !s.isEmpty else { return nil }
        if s.hasPrefix("/") { s.removeFirst() }
        return s
    }

    /// Child prim names of `path` in authored order (`primChildren`), falling back to path order.
    public func primChildren(of path: SdfPath) -> [String] {
        if let names = specs[path]?.fields["primChildren"]?.tokens { return names }
        return []
    }
}
