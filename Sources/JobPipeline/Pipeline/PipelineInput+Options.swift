import FloorPlan
import GLBWriter
import Thumbnailer
import WorkerCore

extension PipelineInput {
    /// Takes the conversion's options (`JobOptions`, as the worker's settings, a command's flags
    /// and the version's row give them): the model's compression and textures, the preview sizes
    /// (when thumbnails are drawn), the plan's units and language (when a plan is drawn). Each
    /// mapping is an exhaustive switch, so a value added on one side does not compile until it is
    /// added here; `JobOptionsTests` checks that both sides spell the same values.
    public mutating func apply(_ options: JobOptions) {
        switch options.glbCompression {
        case .meshopt: glbCompression = .meshopt
        case .none: glbCompression = .none
        }
        switch options.textureFormat {
        case .webp: textureFormat = .webp
        case .original: textureFormat = .original
        }
        if let s = options.orbitSize { thumbnails?.sizes.orbit = ThumbnailSize(width: s.width, height: s.height) }
        if let s = options.cardSize { thumbnails?.sizes.setCard(ThumbnailSize(width: s.width, height: s.height)) }
        switch options.planUnits {
        case .metric: plan?.units = .metric
        case .imperial: plan?.units = .imperial
        }
        switch options.planLocale {
        case .en: plan?.locale = .en
        case .zhHans: plan?.locale = .zhHans
        }
    }
}
