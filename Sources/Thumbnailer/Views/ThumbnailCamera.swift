import SceneModel

/// The camera of a thumbnail: SceneModel's `ViewCamera`, the one camera type the thumbnailer and
/// the manifest share.
public typealias ThumbnailCamera = ViewCamera
