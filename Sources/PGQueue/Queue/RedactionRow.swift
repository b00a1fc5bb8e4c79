/// One row of `redactions` as the worker reads it (migrations 9 and 18).
public struct RedactionRow: Sendable, Equatable {
    /// The row's id (a UUID).
    public var id: String
    /// The texture's path inside the package (`texture_ref`, else `texture_path`).
    public var texturePath: String
    /// The storage key of the app's blurred replacement; nil for a row that only marks an area.
    public var storageKey: String?
    /// `face`, `manual` or nil.
    public var kind: String?
    /// The area, normalised `{x, y, w, h}` text as stored (migration 18's canonical form); nil when
    /// the row has none.
    public var regionJSON: String?
    /// Where `y` is measured from: `bottom_left` (the app's, Vision's) or `top_left`.
    public var origin: String

    public init(id: String, texturePath: String, storageKey: String?, kind: String? = nil,
                regionJSON: String? = nil, origin: String = "bottom_left") {
        self.id = id
        self.texturePath = texturePath
        self.storageKey = storageKey
        self.kind = kind
        self.regionJSON = regionJSON
        self.origin = origin
    }
}
