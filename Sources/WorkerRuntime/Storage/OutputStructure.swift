import WorkerCore
import JSONCore

/// Structure checks of the outputs the daemon publishes besides the plan files (`SVGSafety`,
/// `PDFSafety`, `DXFSafety`): the binary glTF, the WebP images and the layer manifest. Each reads
/// the bytes the daemon holds through `read(offset, count)` (nil: not readable), so a large model
/// is never loaded whole: only its headers and its JSON chunk are.
///
/// The daemon decodes no image: a WebP is checked as a RIFF container whose first chunk is a VP8,
/// VP8L or VP8X header with sane dimensions (those the child reported, when it did), chunk by
/// chunk to the file's end. Running an image decoder in the process that holds the database,
/// storage and Supabase credentials would hand a compromised child's output the very decoder
/// bugs the sandbox keeps away from it.
enum OutputStructure {
    /// Reads `count` bytes at `offset` of the held output (nil: past its end or unreadable).
    typealias Reader = (_ offset: Int, _ count: Int) -> [UInt8]?

    /// The largest glb JSON chunk the daemon reads to check it, bytes.
    static let maxGLBJSONBytes = 64 << 20
    /// The most RIFF chunks a WebP may have.
    static let maxWebPChunks = 64
    /// The largest WebP dimension, pixels (the format's own limit is 16384).
    static let maxWebPSide = 16_384

    /// Why the output `path` of `size` bytes may not be published (nil: it may, or its kind has
    /// no check here). `dimensions` are the width and height the child reported for an image.
    static func problem(_ path: String, size: Int, dimensions: (Int, Int)?, read: Reader) -> String? {
        if path == OutputName.model { return glbProblem(size: size, read: read).map { "model.glb is not a well-formed glb (\($0))" } }
        if path.hasSuffix(".webp") {
            return webpProblem(size: size, dimensions: dimensions, read: read).map { "\(path) is not a well-formed WebP (\($0))" }
        }
        return nil
    }

    // MARK: glb

    /// The header (`glTF`, version 2, its length the file's), a JSON chunk that parses to an
    /// object within `JSONReader.Limits.manifest`, at most one BIN chunk, chunk lengths that add
    /// up to the file, every buffer view inside its buffer and the one buffer inside the BIN chunk.
    static func glbProblem(size: Int, read: Reader) -> String? {
        guard size >= 20, let header = read(0, 20) else { return "shorter than its header" }
        guard header[0..<4].elementsEqual("glTF".utf8) else { return "no glTF magic" }
        guard u32(header, 4) == 2 else { return "version \(u32(header, 4)), not 2" }
        guard u32(header, 8) == size else { return "its header says \(u32(header, 8)) bytes, the file has \(size)" }
        let jsonLength = u32(header, 12)
        guard header[16..<20].elementsEqual("JSON".utf8) else { return "the first chunk is not JSON" }
        guard jsonLength % 4 == 0, jsonLength <= maxGLBJSONBytes, 20 + jsonLength <= size else {
            return "a JSON chunk of \(jsonLength) bytes"
        }
        var binLength: Int?
        var offset = 20 + jsonLength
        if offset < size {
            guard offset + 8 <= size, let chunk = read(offset, 8) else { return "a cut chunk header" }
            binLength = u32(chunk, 0)
            guard chunk[4..<8].elementsEqual([0x42, 0x49, 0x4E, 0x00]) else { return "a second chunk that is not BIN" }
            offset += 8 + binLength!
            guard offset == size, binLength! % 4 == 0 else { return "chunk lengths that do not add up to the file" }
        }
        guard let json = read(20, jsonLength), let document = try? JSONReader.parse(json, limits: .manifest),
              case .object = document else {
            return "a JSON chunk that is not a JSON object"
        }
        return bufferProblem(document, binLength: binLength)
    }

    /// Buffer views inside their buffers, the first buffer inside the BIN chunk.
    private static func bufferProblem(_ document: ParsedJSON, binLength: Int?) -> String? {
        let buffers = document.member("buffers")?.arrayValue ?? []
        var lengths: [Int] = []
        for (i, buffer) in buffers.enumerated() {
            guard let length = buffer.member("byteLength")?.intValue, length >= 0 else { return "buffer \(i) has no byteLength" }
            if i == 0, buffer.member("uri") == nil {
                guard let binLength, length <= binLength else { return "buffer 0 is longer than the BIN chunk" }
            }
            lengths.append(length)
        }
        for (i, view) in (document.member("bufferViews")?.arrayValue ?? []).enumerated() {
            guard let b = view.member("buffer")?.intValue, lengths.indices.contains(b),
                  let length = view.member("byteLength")?.intValue, length >= 0 else {
                return "buffer view \(i) names no buffer or length"
            }
            let start = view.member("byteOffset")?.intValue ?? 0
            guard start >= 0, start <= lengths[b] - length else { return "buffer view \(i) reaches past its buffer" }
        }
        return nil
    }

    // MARK: WebP

    /// `RIFF` with the file's length, `WEBP`, then chunks to the end (each inside the file, at most
    /// `maxWebPChunks`); the first a VP8 (key frame start code), VP8L (signature 0x2F) or VP8X
    /// header whose dimensions are 1…`maxWebPSide` and, when given, `dimensions`.
    static func webpProblem(size: Int, dimensions: (Int, Int)?, read: Reader) -> String? {
        guard size >= 30, let header = read(0, 12) else { return "shorter than a WebP header" }
        guard header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WEBP".utf8) else {
            return "no RIFF/WEBP header"
        }
        guard u32(header, 4) == size - 8 else { return "its RIFF length is not the file's" }
        var offset = 12
        var chunks = 0
        var first: (Int, Int)?
        while offset < size {
            chunks += 1
            guard chunks <= maxWebPChunks else { return "more than \(maxWebPChunks) chunks" }
            guard offset + 8 <= size, let chunk = read(offset, 8) else { return "a cut chunk header" }
            let length = u32(chunk, 4)
            let end = offset + 8 + length + (length & 1)
            guard end <= size else { return "a chunk reaching past the file" }
            if chunks == 1 {
                guard let body = read(offset + 8, min(length, 30)) else { return "a cut first chunk" }
                guard let found = frameSize(Array(chunk[0..<4]), body) else { return "a first chunk that is no VP8, VP8L or VP8X header" }
                first = found
            }
            offset = end
        }
        guard let (w, h) = first, (1...maxWebPSide).contains(w), (1...maxWebPSide).contains(h) else { return "no image size" }
        if let dimensions, dimensions != (w, h) { return "\(w)×\(h), not the \(dimensions.0)×\(dimensions.1) reported" }
        return nil
    }

    /// The width and height a first chunk declares, or nil when it is not a frame header.
    private static func frameSize(_ fourCC: [UInt8], _ body: [UInt8]) -> (Int, Int)? {
        switch String(decoding: fourCC, as: UTF8.self) {
        case "VP8 ":
            // A key frame: bit 0 of the frame tag clear, then the start code 9D 01 2A.
            guard body.count >= 10, body[0] & 1 == 0, body[3] == 0x9D, body[4] == 0x01, body[5] == 0x2A else { return nil }
            return (Int(u16(body, 6) & 0x3FFF), Int(u16(body, 8) & 0x3FFF))
        case "VP8L":
            guard body.count >= 5, body[0] == 0x2F else { return nil }
            let bits = Int(u32(body, 1))
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            guard body.count >= 10 else { return nil }
            let w = Int(body[4]) | Int(body[5]) << 8 | Int(body[6]) << 16
            let h = Int(body[7]) | Int(body[8]) << 8 | Int(body[9]) << 16
            return (w + 1, h + 1)
        default:
            return nil
        }
    }

    // MARK: The manifest

    /// The members `schemas/layer_manifest.schema.json` requires of every manifest.
    static let manifestRequired = [
        "schema_version", "generator", "version_id", "room_id", "source", "inputs", "units", "glb", "bounds", "stories",
        "layers", "elements", "sections", "metrics", "quality", "thumbnails", "plan", "rooms", "redactions", "artifacts",
        "warnings", "stats",
    ]

    /// The largest text document (manifest, plan) the daemon reads whole to check it, bytes.
    static let maxCheckedDocumentBytes = 64 << 20

    /// What the daemon knows of a job's outputs before it reads them: the manifest's schema
    /// version (from the child's summary), the version's and room's ids, and each image's size.
    struct Expectations {
        var manifestSchemaVersion: Int?
        var versionId: String?
        var roomId: String?
        /// Width and height by output path.
        var imageSizes: [String: (Int, Int)] = [:]
    }

    /// A JSON object within `JSONReader.Limits.manifest` with every required member and, where
    /// `expected` says, the `schema_version` the child's summary stated and this version's and
    /// room's ids.
    static func manifestProblem(_ bytes: [UInt8], expected: Expectations) -> String? {
        guard let document = try? JSONReader.parse(bytes, limits: .manifest), case .object = document else {
            return "layer_manifest.json is not a JSON object within the manifest limits"
        }
        if let missing = manifestRequired.first(where: { document.member($0) == nil }) {
            return "layer_manifest.json lacks \(missing)"
        }
        guard document.member("schema_version")?.intValue != nil else { return "layer_manifest.json has no schema_version" }
        if let version = expected.manifestSchemaVersion, document.member("schema_version")?.intValue != version {
            return "layer_manifest.json's schema_version is not the \(version) the child reported"
        }
        if let id = expected.versionId, document.member("version_id")?.stringValue != id {
            return "layer_manifest.json names another version"
        }
        if let id = expected.roomId, document.member("room_id")?.stringValue != id {
            return "layer_manifest.json names another room"
        }
        return nil
    }

    // MARK: Little-endian reads

    private static func u32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
    }

    private static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
}
