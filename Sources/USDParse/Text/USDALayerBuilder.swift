/// Collects the specs of a USDA layer while it is parsed: inserts specs (capped by `maxSpecs`) and
/// lets the parser edit a spec's fields without copying them (`takeFields` / `putFields`).
struct USDALayerBuilder {
    private(set) var specs: [SdfPath: SdfSpec] = [:]
    var warnings: [String] = []
    let maxSpecs: Int

    init(maxSpecs: Int) {
        self.maxSpecs = maxSpecs
        specs[.root] = SdfSpec(type: .pseudoRoot)
    }

    /// Adds a new spec with its fields (the caller checked that none exists); false at `maxSpecs`.
    mutating func insert(_ path: SdfPath, _ type: SdfSpecType, _ fields: [String: SdfValue]) -> Bool {
        guard specs.count < maxSpecs else { return false }
        specs[path] = SdfSpec(type: type, fields: fields)
        return true
    }

    /// Moves the fields of the spec at `path` out (leaving it empty) so they can be edited without
    /// copies; put them back with `putFields`.
    mutating func takeFields(_ path: SdfPath) -> [String: SdfValue] {
        guard specs[path] != nil else { return [:] }
        var fields: [String: SdfValue] = [:]
        swap(&fields, &specs[path]!.fields)
        return fields
    }

    mutating func putFields(_ path: SdfPath, _ fields: [String: SdfValue]) {
        guard specs[path] != nil else { return }
        specs[path]!.fields = fields
    }

    func exists(_ path: SdfPath) -> Bool { specs[path] != nil }

    func type(at path: SdfPath) -> SdfSpecType? { specs[path]?.type }

    /// Sets (or, with nil, removes) a field of an existing spec.
    mutating func set(_ path: SdfPath, _ name: String, _ value: SdfValue?) {
        guard specs[path] != nil else { return }
        specs[path]!.fields[name] = value
    }

    /// Merges `fields` into the spec at `path` (later values win).
    mutating func merge(_ path: SdfPath, _ fields: [String: SdfValue]) {
        guard specs[path] != nil, !fields.isEmpty else { return }
        for (k, v) in fields { specs[path]!.fields[k] = v }
    }

    func build(identifier: String) -> SdfLayer {
        SdfLayer(identifier: identifier, specs: specs, warnings: warnings)
    }
}

/// A list-op edit as written in text: which list the items go to.
enum USDAListOpKind: Sendable {
    case explicit, added, prepended, appended, deleted, ordered
}

extension SdfListOp {
    /// Applies one authored statement the way Sdf does: switching between explicit and
    /// non-explicit mode clears every list; then the named list is replaced by `items`.
    mutating func apply(_ kind: USDAListOpKind, _ items: [T]) {
        let wantExplicit = kind == .explicit
        if wantExplicit != isExplicit {
            self = SdfListOp()
            isExplicit = wantExplicit
        }
        switch kind {
        case .explicit: explicitItems = items
        case .added: addedItems = items
        case .prepended: prependedItems = items
        case .appended: appendedItems = items
        case .deleted: deletedItems = items
        case .ordered: orderedItems = items
        }
    }
}
