/// One node of the scene hierarchy: a transform, an optional mesh and the identity it had in the
/// source file.
public struct Node: Hashable, Sendable {
    /// Display name (the USD prim name for USD input).
    public var name: String
    /// Parent node; `nil` for a root.
    public var parent: NodeIndex?
    /// Transform relative to the parent, in metres, +Y up (the scene's frame).
    public var localTransform: Matrix4
    /// Mesh drawn at this node, if any.
    public var mesh: MeshIndex?
    /// Path of the prim this node came from (e.g. `/Room/Parametric_grp/Arch_grp/Wall_0_grp`).
    public var sourcePath: String
    /// The source schema type (`Xform`, `Mesh`, `Cube`, …); empty when typeless.
    public var sourceType: String
    /// `customData` of the prim, and of the root prim of every layer it references, merged
    /// (the prim's own keys win). RoomPlan element identity (`UUID`, `Category`) lives here.
    public var customData: [String: MetadataValue]
    /// `customData` of each referenced layer's root prim, in reference order (strongest first).
    /// Several RoomPlan layers can be referenced onto one group prim; each keeps its own identity.
    public var referencedCustomData: [[String: MetadataValue]]
    /// USD `kind` metadata (`component`, `group`, `assembly`, …), empty when absent.
    public var kind: String

    public init(
        name: String, parent: NodeIndex? = nil, localTransform: Matrix4 = .identity, mesh: MeshIndex? = nil,
        sourcePath: String = "", sourceType: String = "", customData: [String: MetadataValue] = [:],
        referencedCustomData: [[String: MetadataValue]] = [], kind: String = ""
    ) {
        self.name = name
        self.parent = parent
        self.localTransform = localTransform
        self.mesh = mesh
        self.sourcePath = sourcePath
        self.sourceType = sourceType
        self.customData = customData
        self.referencedCustomData = referencedCustomData
        self.kind = kind
    }
}
