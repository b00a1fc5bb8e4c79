/// Typed indices into the flat arrays of a `Scene`. Mixing index spaces is a compile error.
///
/// Each index is a plain position in the corresponding array (`Scene.nodes`, `Scene.meshes`, …);
/// `SceneValidator` checks that every stored index is in range.
public struct NodeIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "node#\(rawValue)" }
}

/// Index of a mesh in `Scene.meshes`.
public struct MeshIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "mesh#\(rawValue)" }
}

/// Index of a material in `Scene.materials`.
public struct MaterialIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "material#\(rawValue)" }
}

/// Index of a texture in `Scene.textures`.
public struct TextureIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "texture#\(rawValue)" }
}
