import Manifest
import SceneModel
import Thumbnailer
import USDParse
import WorkerCore

/// The redaction step of the parsing phase: the app's replacements swapped in, then every area the
/// `redactions` rows mark blurred (`TextureRedactor`) on whatever texture will be embedded, before
/// the scene, the model, the thumbnails or the report read it.
extension ParseStage {
    /// What the step hands on: the bytes that replace package entries, and the manifest's records.
    struct RedactionPlan {
        var replacements: [String: [UInt8]] = [:]
        var records: [TextureSubstitution] = []
        var inputs: [InputFile] = []
        /// Per `redactions` row with an area: a small WebP of the published texture around it,
        /// written as `privacy/<row id>.webp`.
        var crops: [(redactionId: String, webp: [UInt8])] = []
    }

    /// Applies `input.redactedTextures` and `input.redactionAreas` to the package entries.
    ///
    /// - Parameters:
    ///   - entries: the package's entry paths (or, outside a package, the resolved paths named).
    ///   - data: reads an entry's original bytes.
    /// - Throws: `PipelineError` `REDACTION_INVALID` (permanent) when a replacement or a row's texture
    ///   matches no entry or more than one, a row's area is not a box inside the texture, the texture
    ///   cannot be decoded to be blurred, or an area still holds sharp detail after the blur.
    static func redact(_ input: PipelineInput, entries: [String],
                       data: (String) -> [UInt8]?) throws(PipelineError) -> RedactionPlan {
        func invalid(_ message: String) -> PipelineError {
            PipelineError(code: PipelineError.Code.redactionInvalid, message: message, phase: .parsing)
        }
        let offers = input.redactedTextures.map { RedactingAssetProvider.Offer(relativePath: $0.relativePath, bytes: $0.bytes) }
        let (matched, unmatched, ambiguous) = RedactingAssetProvider.match(offers, entries: entries)
        // A replacement that cannot be applied would let the original, unblurred texture through
        // to the public model and thumbnails: the conversion stops instead.
        if let offer = unmatched.first ?? ambiguous.first {
            let why = unmatched.first != nil ? "matches no texture of the package"
                : "matches more than one texture of the package (name its full path)"
            throw invalid("redacted texture \(offer.relativePath) \(why); \(unmatched.count) unmatched, \(ambiguous.count) ambiguous")
        }
        // Each texture the rows name, found as the replacements are.
        var entryOf: [String: String] = [:]
        for (entry, offer) in matched { entryOf[offer.relativePath] = entry }
        for (path, rows) in input.redactionAreas.sorted(by: { $0.key < $1.key }) where entryOf[path] == nil {
            let found = RedactingAssetProvider.match([.init(relativePath: path, bytes: [])], entries: entries).matched
            guard let entry = found.keys.first else {
                throw invalid("redaction \(rows.first?.id ?? "?") names texture \(path), which is not in the package")
            }
            entryOf[path] = entry
        }
        var plan = RedactionPlan()
        for (path, entry) in entryOf.sorted(by: { $0.value < $1.value }) {
            let offer = matched[entry]
            let rows = input.redactionAreas[path] ?? []
            var areas: [TextureRedactor.Area] = []
            var areaRows: [String] = []
            var applied: [TextureSubstitution.Applied] = []
            for row in rows {
                var methods: [TextureSubstitution.Method] = row.replaced && offer != nil ? [.appReplacement] : []
                if let b = try row.box() {
                    areas.append(TextureRedactor.Area(x: b.x, y: b.y, width: b.w, height: b.h, fromBottom: row.fromBottom))
                    areaRows.append(row.id)
                    methods.append(.serverBlur)
                }
                applied.append(TextureSubstitution.Applied(redactionId: row.id, methods: methods))
            }
            var bytes = offer?.bytes
            if !areas.isEmpty {
                guard let source = bytes ?? data(entry) else { throw invalid("texture \(entry) cannot be read to blur it") }
                let result: TextureRedactor.Result
                do { result = try TextureRedactor.blur(source, areas: areas) } catch {
                    throw invalid("texture \(entry) cannot be blurred (\(error.code)): \(error.message)")
                }
                if let sharp = areas.indices.first(where: { TextureRedactor.isSharp(result, area: $0) }) {
                    throw invalid("an area of texture \(entry) still holds sharp detail after the blur "
                                  + "(detail ratio \(result.detailRatio[sharp]))")
                }
                bytes = result.webp
                for (id, crop) in zip(areaRows, result.crops) where !crop.isEmpty { plan.crops.append((id, crop)) }
            }
            if let bytes { plan.replacements[entry] = bytes }
            var hash: String?
            if let offer {
                let h = Digest.hex(Digest.sha256(offer.bytes))
                hash = h
                plan.inputs.append(InputFile(role: "redacted_texture", name: offer.relativePath,
                                             format: imageFormat(offer.bytes), bytes: offer.bytes.count, sha256: h))
            }
            plan.records.append(TextureSubstitution(texturePath: entry, replacementName: offer?.relativePath,
                                                    replacementSHA256: hash, regions: rows.count, applied: applied))
        }
        return plan
    }

    /// The format of an image by its first bytes, as the manifest names it.
    static func imageFormat(_ bytes: [UInt8]) -> String {
        switch Texture.sniffMIMEType(bytes) {
        case "image/png": return "png"
        case "image/jpeg": return "jpeg"
        case "image/webp": return "webp"
        default: return "unknown"
        }
    }
}
