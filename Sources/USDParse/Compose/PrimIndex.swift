/// The composition arcs that contribute opinions to one prim, as a tree of sites. Strength order
/// is the pre-order traversal of the tree (a node's own opinions, then its arcs in LIVRPS order).
struct PrimIndex {
    enum Arc: Int, Comparable {
        case root = 0, inherit, variant, reference, payload, specialize
        static func < (a: Arc, b: Arc) -> Bool { a.rawValue < b.rawValue }
    }

    /// How a path authored at a node maps to its parent node's namespace.
    struct NamespaceMap {
        var source: SdfPath
        var target: SdfPath
        /// References drop paths outside `source`; inherits keep them unchanged.
        var dropsOutside: Bool
    }

    /// A prim spec site in one layer stack (its root layer's identifier): an entry of `Node.chain`.
    struct Site: Hashable {
        var layer: String
        var path: SdfPath
    }

    struct Node {
        var arc: Arc
        var stack: LayerStack
        var path: SdfPath
        /// Innermost first: apply in order to map a node path into stage namespace.
        var maps: [NamespaceMap]
        /// Maps this node's layer-stack time to stage time.
        var offset: SdfLayerOffset
        /// (stack root, path) of every node from the stage root down to this one: cycle detection.
        var chain: [Site]
        /// True when the arc was introduced at this prim (not inherited from an ancestor prim).
        var introducedHere: Bool
        var expanded: Bool = false
        var children: [Node] = []
    }

    var root: Node

    /// Sites in strength order (strongest first).
    func flattened() -> [Node] {
        var out: [Node] = []
        var stack: [Node] = [root]
        while let n = stack.popLast() {
            out.append(n)
            for c in n.children.reversed() { stack.append(c) }
        }
        return out
    }

    /// The index of a child prim: every site moves to `path/name`; arcs stay, marked ancestral.
    func child(named name: String) -> PrimIndex {
        func move(_ n: Node) -> Node {
            var m = n
            m.path = n.path.appendingChild(name)
            m.introducedHere = false
            m.expanded = false
            m.children = n.children.map(move)
            return m
        }
        return PrimIndex(root: move(root))
    }
}

extension PrimIndex.Node {
    /// Maps a path authored at this node into the stage namespace; nil when it leaves a referenced
    /// subtree.
    func mapToStage(_ p: SdfPath) -> SdfPath? {
        var x = p.strippingVariantSelections
        for m in maps {
            let src = m.source.strippingVariantSelections
            if x.hasPrefix(src) {
                x = x.replacingPrefix(src, with: m.target.strippingVariantSelections)
            } else if m.dropsOutside {
                return nil
            }
        }
        return x
    }
}
