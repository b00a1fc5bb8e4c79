import SceneModel

/// The camera a thumbnail was rendered with: SceneModel's `ViewCamera`, the type the thumbnailer
/// makes, listed as it is.
public typealias Camera = ViewCamera
