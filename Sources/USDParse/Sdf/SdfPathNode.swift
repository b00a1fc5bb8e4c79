import Synchronization

/// Creation order of path nodes. Nodes found equal link from the newer to the older (`twin`), so
/// links never form cycles and a long-lived node never keeps a newer one alive.
private let nodeSerials = Atomic<UInt64>(0)

/// One element of an `SdfPath` and the node of its parent path. Immutable once built: a path of
/// depth d is d nodes shared with every path below it, so appending costs one node and a deep
/// hierarchy costs memory linear in its depth.
///
/// Two memo fields are written at most once each, atomically, and only ever hold nodes of equal
/// paths, so they change no result: `twin` (a node found equal to this one, which lets later
/// comparisons of their descendants stop at this level) and `stripped` (this path without its
/// variant selections).
final class SdfPathNode: @unchecked Sendable {
    /// What the element is. `relativeRoot` is the start of a relative path (spelled as nothing);
    /// `opaque` holds text that is not a well-formed path, verbatim, as its only element.
    enum Kind: UInt8 {
        case root, relativeRoot, parentReference, prim, variant, property, target, opaque
    }

    /// Nil only for `root`, `relativeRoot` and `opaque` nodes. It never changes while the node is
    /// reachable: `deinit` clears it on ancestors nobody else holds, to free long chains without
    /// recursion.
    private(set) var parent: SdfPathNode?
    /// `parent` without ownership, for walks that hold the leaf (and so every ancestor) alive.
    private let up: Unmanaged<SdfPathNode>?
    /// The separator (see `separator(_:under:)`), fixed at creation.
    let separator: UInt8?
    /// The element as spelled: `/` for the root, a prim or property name, `{set=sel}`, `[target]`,
    /// `..`, or the whole text of an opaque path.
    let element: String
    let kind: Kind
    /// Nodes above this one (0 for the root, a relative root and an opaque path).
    let depth: Int
    /// UTF-8 length of the whole spelled path.
    let utf8Count: Int
    /// Combined from the parent's hash, the kind and the element.
    let hash: Int
    let isAbsolute: Bool
    /// True when this node or an ancestor is a variant selection.
    let hasVariantSelection: Bool
    private let serial: UInt64
    private let twin = AtomicLazyReference<SdfPathNode>()
    /// The address of `twin`'s node once it is set (0 until then), for comparisons that follow
    /// twins without retaining them; `twin` keeps that node alive.
    private let twinAddress = Atomic<UInt>(0)
    private let stripped = AtomicLazyReference<SdfPathNode>()

    /// Fixed cost of one node charged to the memory budget (bytes): the object and its fields.
    static let chargedBytes = 128

    static let root = SdfPathNode(parent: nil, element: "/", kind: .root)
    static let relativeRoot = SdfPathNode(parent: nil, element: "", kind: .relativeRoot)

    private init(parent: SdfPathNode?, element: String, kind: Kind) {
        self.parent = parent
        up = parent.map { Unmanaged.passUnretained($0) }
        self.element = element
        self.kind = kind
        depth = parent.map { $0.depth + 1 } ?? 0
        separator = Self.separator(kind, under: parent?.kind)
        utf8Count = (parent?.utf8Count ?? 0) + (separator == nil ? 0 : 1) + element.utf8.count
        var h = Hasher()
        h.combine(parent?.hash ?? 0)
        h.combine(kind.rawValue)
        h.combine(element)
        hash = h.finalize()
        switch kind {
        case .root: isAbsolute = true
        case .relativeRoot: isAbsolute = false
        case .opaque: isAbsolute = element.utf8.first == UInt8(ascii: "/")
        default: isAbsolute = parent?.isAbsolute ?? false
        }
        hasVariantSelection = kind == .variant || (parent?.hasVariantSelection ?? false)
        serial = nodeSerials.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// A child element of `parent` (`kind` is neither a root nor opaque).
    convenience init(_ parent: SdfPathNode, _ element: String, _ kind: Kind) {
        self.init(parent: parent, element: element, kind: kind)
    }

    /// Text that is not a well-formed path, kept verbatim.
    convenience init(opaque text: String) { self.init(parent: nil, element: text, kind: .opaque) }

    deinit {
        // Releasing a chain recursively would take one stack frame per level.
        var next = parent
        parent = nil
        while next != nil {
            var node = next!
            next = nil
            guard isKnownUniquelyReferenced(&node) else { return }
            next = node.parent
            node.parent = nil
        }
    }

    /// The byte spelled before the element: `/` before a prim or `..` that follows a name, `.`
    /// before a property; none after the root, a relative root or a variant selection, and none
    /// before selections and targets (their brackets delimit them).
    static func separator(_ kind: Kind, under parent: Kind?) -> UInt8? {
        switch kind {
        case .prim:
            switch parent {
            case .root?, .relativeRoot?, .variant?, nil: return nil
            default: return UInt8(ascii: "/")
            }
        case .parentReference: return parent == .parentReference ? UInt8(ascii: "/") : nil
        case .property: return UInt8(ascii: ".")
        default: return nil
        }
    }

    /// The whole path, built by walking up once (O(length)).
    var spelled: String { spelled(below: nil) }

    /// The text after ancestor `stop` (the whole path when nil): the chunks of the nodes below it.
    func spelled(below stop: SdfPathNode?) -> String {
        let count = utf8Count - (stop?.utf8Count ?? 0)
        return withExtendedLifetime(self) {
            String(unsafeUninitializedCapacity: count) { buffer in
                var end = count
                // `self` keeps every ancestor alive: walk them without reference counting.
                var cursor: Unmanaged<SdfPathNode>? = Unmanaged.passUnretained(self)
                while let current = cursor {
                    cursor = current._withUnsafeGuaranteedRef { n -> Unmanaged<SdfPathNode>? in
                        if n === stop { return nil }
                        var element = n.element
                        end -= element.utf8.count
                        element.withUTF8 { bytes in
                            UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[end...])
                                .copyMemory(from: UnsafeRawBufferPointer(bytes))
                        }
                        if let s = n.separator {
                            end -= 1
                            buffer[end] = s
                        }
                        return n.up
                    }
                }
                return count
            }
        }
    }

    /// The address of the oldest node known to be equal to `node`, walked without reference
    /// counting: each node owns its twin, so the chain lives as long as `node` does.
    @inline(__always)
    private static func representative(_ node: Unmanaged<SdfPathNode>) -> UnsafeMutableRawPointer {
        var n = node.toOpaque()
        while true {
            let t = Unmanaged<SdfPathNode>.fromOpaque(n)._withUnsafeGuaranteedRef {
                $0.twinAddress.load(ordering: .acquiring)
            }
            guard t != 0, let next = UnsafeMutableRawPointer(bitPattern: t) else { return n }
            n = next
        }
    }

    /// Element-wise equality: identity, then hash and depth, then the elements from the leaves up,
    /// stopping at the first shared (or known-equal) ancestor. Equal chains are then linked level
    /// by level, so comparing them (or their descendants) again stops after one level. The walks
    /// follow `up` and the twins' addresses: `a` and `b` keep every node on them alive.
    static func equal(_ a: SdfPathNode, _ b: SdfPathNode) -> Bool {
        if a === b { return true }
        guard a.hash == b.hash, a.depth == b.depth else { return false }
        // Levels compared before a shared or known-equal one; nil when an element differs.
        let compared: Int? = withExtendedLifetime((a, b)) {
            var x = Unmanaged.passUnretained(a), y = Unmanaged.passUnretained(b)
            var level = 0
            while x.toOpaque() != y.toOpaque(), representative(x) != representative(y) {
                let same = x._withUnsafeGuaranteedRef { nx in
                    y._withUnsafeGuaranteedRef { ny in nx.hash == ny.hash && nx.kind == ny.kind && nx.element == ny.element }
                }
                guard same else { return nil }
                level += 1
                // Equal depth: both have a parent or neither has.
                guard let px = x._withUnsafeGuaranteedRef({ $0.up }), let py = y._withUnsafeGuaranteedRef({ $0.up })
                else { break }
                x = px
                y = py
            }
            return level
        }
        guard let compared else { return false }
        // Already known equal: nothing to link.
        if compared == 0 { return true }
        var x = a, y = b
        while true {
            let rx = x.representative, ry = y.representative
            if rx === ry { break }
            if rx.serial > ry.serial { rx.link(to: ry) } else { ry.link(to: rx) }
            guard let px = x.parent, let py = y.parent else { break }
            x = px
            y = py
        }
        return true
    }

    /// The oldest node known to be equal to this one.
    private var representative: SdfPathNode {
        var n = self
        while let t = n.twin.load() { n = t }
        return n
    }

    /// Records `older` as this node's twin (unless one is already recorded) and publishes its address.
    private func link(to older: SdfPathNode) {
        let kept = twin.storeIfNil(older)
        twinAddress.store(UInt(bitPattern: Unmanaged.passUnretained(kept).toOpaque()), ordering: .releasing)
    }

    /// This path without its variant selections (`/A{v=x}B.y` → `/A/B.y`), memoized per node so a
    /// chain below a selection is stripped once, one node per level.
    var strippingVariantSelections: SdfPathNode {
        guard hasVariantSelection else { return self }
        if let s = stripped.load() { return s }
        var pending: [SdfPathNode] = []
        var node = self
        var base: SdfPathNode
        while true {
            if !node.hasVariantSelection {
                base = node
                break
            }
            if let s = node.stripped.load() {
                base = s
                break
            }
            pending.append(node)
            guard let p = node.parent else { return self }  // only roots and opaque paths lack one
            node = p
        }
        for p in pending.reversed() {
            let s = p.kind == .variant ? base : SdfPathNode(base, p.element, p.kind)
            base = p.stripped.storeIfNil(s)
        }
        return base
    }
}
