/// A typed index into one of the flat arrays of a `Scene`. Mixing index spaces is a compile error.
///
/// Each index is a plain position in the corresponding array (`Scene.nodes`, `Scene.meshes`, …);
/// `SceneValidator` checks that every stored index is in range. The four index types below differ
/// only in the array they point into, so they share everything through this protocol.
public protocol SceneIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The position in the array.
    var rawValue: Int { get }
    init(_ rawValue: Int)
    /// `node`, `mesh`, `material` or `texture`: how `description` names the array.
    static var arrayName: String { get }
}

extension SceneIndex {
    @inlinable public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "\(Self.arrayName)#\(rawValue)" }
}

/// Index of a node in `Scene.nodes`.
public struct NodeIndex: SceneIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static let arrayName = "node"
}

/// Index of a mesh in `Scene.meshes`.
public struct MeshIndex: SceneIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static let arrayName = "mesh"
}

/// Index of a material in `Scene.materials`.
public struct MaterialIndex: SceneIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static let arrayName = "material"
}

/// Index of a texture in `Scene.textures`.
public struct TextureIndex: SceneIndex {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static let arrayName = "texture"
}
