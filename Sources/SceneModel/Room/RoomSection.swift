/// A RoomPlan section (iOS 17+): a labelled point, not geometry.
public struct RoomSection: Hashable, Sendable {
    /// `livingRoom`, `bedroom`, `unidentified`, …
    public var label: String
    /// Centre in world space (metres).
    public var center: SIMD3<Double>
    public var story: Int?

    public init(label: String, center: SIMD3<Double>, story: Int? = nil) {
        self.label = label
        self.center = center
        self.story = story
    }
}
