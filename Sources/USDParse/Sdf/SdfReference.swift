/// A reference arc: `@asset@</prim>` with an offset and custom data. An empty `assetPath` is an
/// internal reference (same layer stack); an empty `primPath` targets the layer's `defaultPrim`.
public struct SdfReference: Hashable, Sendable {
    public var assetPath: String
    public var primPath: SdfPath
    public var layerOffset: SdfLayerOffset
    public var customData: [String: SdfValue]
    public init(assetPath: String, primPath: SdfPath = .empty, layerOffset: SdfLayerOffset = .identity,
                customData: [String: SdfValue] = [:]) {
        self.assetPath = assetPath
        self.primPath = primPath
        self.layerOffset = layerOffset
        self.customData = customData
    }
}
