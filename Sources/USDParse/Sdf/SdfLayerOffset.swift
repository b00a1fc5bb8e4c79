/// Time offset and scale applied across a composition arc.
public struct SdfLayerOffset: Hashable, Sendable {
    public var offset: Double
    public var scale: Double
    public init(offset: Double = 0, scale: Double = 1) {
        self.offset = offset
        self.scale = scale
    }
    public static let identity = SdfLayerOffset()
}
