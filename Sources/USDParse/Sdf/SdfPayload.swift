/// A payload arc (like a reference without custom data).
public struct SdfPayload: Hashable, Sendable {
    public var assetPath: String
    public var primPath: SdfPath
    public var layerOffset: SdfLayerOffset
    public init(assetPath: String, primPath: SdfPath = .empty, layerOffset: SdfLayerOffset = .identity) {
        self.assetPath = assetPath
        self.primPath = primPath
        self.layerOffset = layerOffset
    }
}
