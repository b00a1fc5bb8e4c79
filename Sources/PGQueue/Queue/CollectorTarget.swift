/// A version's output state as the database has it now: what `OutputCollector` must keep.
public struct CollectorTarget: Sendable {
    public var versionId: String
    public var roomId: String
    /// The version's `glb_path` (nil when it has none, e.g. a failed version).
    public var glbPath: String?
    /// The version's `lease_id` when an attempt holds it.
    public var leaseId: String?

    public init(versionId: String, roomId: String, glbPath: String?, leaseId: String?) {
        self.versionId = versionId
        self.roomId = roomId
        self.glbPath = glbPath
        self.leaseId = leaseId
    }
}
