/// A scene-description path: `/`, `/A/B`, `/A/B.attr`, `/A{set=variant}B`, `/A.rel[/Target]`, or a
/// relative path (`../Sib`, `Child`, `.attr`) before it is resolved. The empty path (`""`) means
/// "none" (for example a reference that targets the referenced layer's `defaultPrim`).
///
/// A path is a handle to an immutable node holding its last element and its parent's node, so
/// `parent`, `name`, `primPath`, `propertyName`, the `appending…` methods, hashing and
/// `utf8Count` take constant time whatever the depth, and a path below another shares its nodes.
/// `string` spells the path on demand in O(length): build it once where text is needed.
/// Compared by value: paths built by appending equal the same paths parsed from text, and order
/// as their canonical strings do.
public struct SdfPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nil for the empty path.
    let node: SdfPathNode?

    init(node: SdfPathNode?) { self.node = node }

    /// Parses `string` (see `SdfPathParser`); text that is not a well-formed path is kept verbatim.
    public init(_ string: String) { node = SdfPathParser.parse(string) }

    public static let root = SdfPath(node: .root)
    public static let empty = SdfPath(node: nil)

    /// The canonical text, spelled by walking up the path (O(length)).
    public var string: String { node?.spelled ?? "" }
    public var description: String { string }
    /// Length of `string` in UTF-8 bytes, without spelling it.
    public var utf8Count: Int { node?.utf8Count ?? 0 }
    public var isEmpty: Bool { node == nil }
    public var isRoot: Bool { node?.kind == .root }
    public var isAbsolute: Bool { node?.isAbsolute ?? false }
    /// True when the path has a variant selection element anywhere (`/A{v=x}B`).
    public var containsVariantSelection: Bool { node?.hasVariantSelection ?? false }

    public static func == (a: SdfPath, b: SdfPath) -> Bool {
        switch (a.node, b.node) {
        case (nil, nil): return true
        case (let x?, let y?): return SdfPathNode.equal(x, y)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(node?.hash ?? 0) }

    /// Orders as the canonical strings compare (`string < other.string`).
    public static func < (a: SdfPath, b: SdfPath) -> Bool {
        guard let y = b.node else { return false }
        guard let x = a.node else { return true }
        return SdfPathNode.precedes(x, y)
    }

    /// True for `/Prim.name` (attributes and relationships) and for targets below them
    /// (`/Prim.rel[/T]`).
    public var isPropertyPath: Bool { node?.kind == .property || node?.kind == .target }

    /// The prim part of a property or target path (`/A/B.x` → `/A/B`, `/A.r[/T]` → `/A`), or self.
    public var primPath: SdfPath {
        var n = node
        while let x = n, x.kind == .property || x.kind == .target { n = x.parent }
        return SdfPath(node: n)
    }

    /// The property name (`/A.b:c` → `b:c`; for a target path, the property with its target:
    /// `/A.r[/T]` → `r[/T]`), or nil for prim paths.
    public var propertyName: String? {
        guard let n = node else { return nil }
        switch n.kind {
        case .property: return n.element
        case .target: return (SdfPath(node: n.parent).propertyName ?? "") + n.element
        default: return nil
        }
    }

    /// The last element name: prim name, property name (see `propertyName`), `{set=sel}` for a
    /// variant selection, `..` for a parent reference, or `""` for the root and the empty path.
    public var name: String {
        guard let n = node else { return "" }
        switch n.kind {
        case .root, .relativeRoot: return ""
        case .target: return propertyName ?? n.element
        default: return n.element
        }
    }

    /// The set and selection of a variant selection element (`/A{v=x}` → `("v", "x")`), else nil.
    public var variantSelection: (set: String, variant: String)? {
        guard let n = node, n.kind == .variant else { return nil }
        let inner = n.element.dropFirst().dropLast()
        guard let eq = inner.firstIndex(of: "=") else { return nil }
        return (String(inner[..<eq]), String(inner[inner.index(after: eq)...]))
    }

    /// The parent path: `/A/B` → `/A`, `/A` → `/`, `/A.x` → `/A`, `/A{v=x}B` → `/A{v=x}`,
    /// `/A{v=x}` → `/A`, `/A.r[/T]` → `/A.r`, `/` → empty, `Child` → empty.
    public var parent: SdfPath {
        guard let p = node?.parent, p.kind != .relativeRoot else { return .empty }
        return SdfPath(node: p)
    }

    /// Appends an element; on the empty path, prims go below the root (`/name`, as the text
    /// `"" + "/" + name` did) and other elements start a relative path.
    func appending(_ element: String, _ kind: SdfPathNode.Kind) -> SdfPath {
        let base = node ?? (kind == .prim ? .root : .relativeRoot)
        return SdfPath(node: SdfPathNode(base, element, kind))
    }

    /// Appends a prim child name.
    public func appendingChild(_ name: String) -> SdfPath { appending(name, .prim) }

    /// Appends a property name.
    public func appendingProperty(_ name: String) -> SdfPath { appending(name, .property) }

    /// Appends a variant selection element `{set=variant}` (`variant` may be empty for the set spec).
    public func appendingVariantSelection(set: String, variant: String) -> SdfPath {
        appending("{" + set + "=" + variant + "}", .variant)
    }

    /// Appends a raw element as stored in a crate PATHS table: a `{set=sel}` selection, a `[target]`,
    /// or a prim name.
    public func appendingElement(_ element: String) -> SdfPath {
        if element.hasPrefix("{") { return appending(element, .variant) }
        if element.hasPrefix("[") { return appending(element, .target) }
        return appendingChild(element)
    }

    /// True if `prefix` is this path or an ancestor of it (element-wise); the root prefixes every
    /// absolute path, the empty path prefixes nothing. O(depth difference).
    public func hasPrefix(_ prefix: SdfPath) -> Bool {
        guard var n = node, let p = prefix.node else { return false }
        if p.kind == .root { return n.isAbsolute }
        guard n.depth >= p.depth else { return false }
        while n.depth > p.depth, let up = n.parent { n = up }
        return SdfPathNode.equal(n, p)
    }

    /// Replaces the leading `old` prefix with `new` (`/A/B.x` with `/A` → `/Z` gives `/Z/B.x`).
    /// O(depth difference).
    public func replacingPrefix(_ old: SdfPath, with new: SdfPath) -> SdfPath {
        guard hasPrefix(old), var n = node, let o = old.node else { return self }
        var below: [SdfPathNode] = []
        while n.depth > o.depth, let up = n.parent {
            below.append(n)
            n = up
        }
        var out = new
        for e in below.reversed() { out = out.appending(e.element, e.kind) }
        return out
    }

    /// This path with every variant selection element removed (`/A{v=x}B.y` → `/A/B.y`).
    /// Constant time without selections; memoized per node otherwise.
    public var strippingVariantSelections: SdfPath { SdfPath(node: node?.strippingVariantSelections) }

    /// Resolves a relative path (`../Sib`, `.attr`, `Child`) against `anchor` (a prim path).
    /// Absolute, empty and opaque paths are returned unchanged; `..` above the root gives the
    /// empty path, below which a prim is placed under the root.
    public func resolved(against anchor: SdfPath) -> SdfPath {
        guard var n = node, !n.isAbsolute, n.kind != .opaque else { return self }
        var chain: [SdfPathNode] = []
        while n.kind != .relativeRoot, let up = n.parent {
            chain.append(n)
            n = up
        }
        var out = anchor
        for e in chain.reversed() {
            out = e.kind == .parentReference ? out.parent : out.appending(e.element, e.kind)
        }
        return out
    }
}
