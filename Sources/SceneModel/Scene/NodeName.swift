/// The names of the glTF nodes the worker writes: names that loaders show exactly as written.
///
/// three.js's `GLTFLoader` passes every node name through `PropertyBinding.sanitizeNodeName`
/// (white space becomes `_`; `[`, `]`, `.`, `:` and `/` are removed) and, in current releases,
/// appends `_1`, `_2`, … to a name it has already given; Blender keeps at most 63 bytes of an
/// object name and appends `.001` to a duplicate. A name made here has 1 to `maxLength`
/// characters, each one of `A–Z a–z 0–9 _ -`, and is unique among the nodes of its file, so these
/// loaders (and those that keep names as they are) show it unchanged, and an editor finds the node
/// with `getObjectByName` and the name the manifest gives.
///
/// - a layer node: `layer_` and the layer id (`layer_walls`, `layer_objects_chair`,
///   `layer_group_Furniture`);
/// - an element node: the element's identifier (a RoomPlan UUID is kept as it is);
/// - a room node of a home: `room_` and the room's identifier;
/// - any other node: its scene name; no name when that is empty.
///
/// In each, every character outside that set becomes `_` (`objects.chair` → `objects_chair`,
/// `/Root/Mesh 1` → `_Root_Mesh_1`). A longer text keeps its first `headLength` characters and its
/// end, joined by `_`, so the end of a long USD path (the prim's own name) stays in the name. The
/// original layer id and identifier stay in the nodes' `extras` and in the manifest.
///
/// Collisions: `NodeName.Claims` gives the names in a fixed order (layer nodes in layer order,
/// element nodes in element order, then the other written nodes in file order); a name already
/// given takes the first of `-2`, `-3`, … that makes it unique, its base cut so that the whole stays
/// within `maxLength`. The same scene therefore always gets the same names, and the names of layer
/// and element nodes never depend on the other nodes.
public enum NodeName {
    /// The longest name: Blender's limit for object names, in bytes (all characters here are ASCII).
    public static let maxLength = 63

    /// How many leading characters a name longer than `maxLength` keeps before `_` and its end.
    public static let headLength = 20

    /// The name of the node of layer `id`, before collisions: `layer_<id>`.
    public static func layer(_ id: LayerID) -> String { loaderSafe("layer_" + id.rawValue) }

    /// The name of the node of the element `identifier`, before collisions.
    public static func element(_ identifier: String) -> String { loaderSafe(identifier) }

    /// The name of the node of the room `identifier` of a home, before collisions: `room_<id>`.
    public static func room(_ identifier: String) -> String { loaderSafe("room_" + identifier) }

    /// `name` with every character outside `A–Z a–z 0–9 _ -` replaced by `_`; when longer than
    /// `maxLength`, its first `headLength` characters, `_` and as much of its end as fits; `node`
    /// when `name` is empty.
    public static func loaderSafe(_ name: String) -> String {
        var kept = name.unicodeScalars.map { isKept($0) ? Character($0) : "_" }
        if kept.count > maxLength {
            kept = Array(kept.prefix(headLength)) + ["_"] + Array(kept.suffix(maxLength - headLength - 1))
        }
        return kept.isEmpty ? "node" : String(kept)
    }

    /// Whether `name` is one a node may carry: 1 to `maxLength` characters of `A–Z a–z 0–9 _ -`.
    public static func isLoaderSafe(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.count <= maxLength && name.unicodeScalars.allSatisfy(isKept)
    }

    static func isKept(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
    }

    /// The names given so far in one file; each `claim` returns a name no earlier claim returned.
    public struct Claims: Sendable {
        private var given: Set<String> = []

        public init() {}

        /// `wanted` made loader-safe, or, when that is already given, the first free `<base>-N`
        /// (N = 2, 3, …) with the base cut so that the name keeps within `maxLength`.
        public mutating func claim(_ wanted: String) -> String {
            let name = NodeName.loaderSafe(wanted)
            if given.insert(name).inserted { return name }
            var n = 2
            while true {
                let suffix = "-\(n)"
                let candidate = String(name.prefix(NodeName.maxLength - suffix.count)) + suffix
                if given.insert(candidate).inserted { return candidate }
                n += 1
            }
        }
    }
}

extension LayeredScene {
    /// The written name of every layer and element node, then of each of `others` (nodes with an
    /// empty scene name are left out), given in that order by `NodeName.Claims`. The GLB writer
    /// names its nodes with it and the manifest reports the same names.
    public func nodeNames(others: [NodeIndex] = []) -> [NodeIndex: String] {
        var claims = NodeName.Claims()
        var names: [NodeIndex: String] = [:]
        func give(_ node: NodeIndex, _ wanted: String) {
            guard names[node] == nil else { return }
            names[node] = claims.claim(wanted)
        }
        for layer in layers { give(layer.node, NodeName.layer(layer.id)) }
        for element in elements { give(element.node, NodeName.element(element.identifier)) }
        for node in others where node.rawValue >= 0 && node.rawValue < scene.nodes.count {
            let name = scene.nodes[node.rawValue].name
            if !name.isEmpty { give(node, name) }
        }
        return names
    }
}
