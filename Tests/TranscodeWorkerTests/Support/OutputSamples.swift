import Foundation
@testable import WorkerRuntime

/// Small outputs of the shapes the worker's structure checks accept (a glb, a WebP header, a
/// manifest), to build well-formed and broken variants from.
enum OutputSamples {
    /// A glb whose JSON chunk (padded with spaces to `jsonBytes` at least) declares one buffer
    /// of `binBytes` and one view of it.
    static func glb(jsonBytes: Int = 0, binBytes: Int = 16, viewLength: Int? = nil) -> [UInt8] {
        let view = viewLength ?? binBytes
        var json = Array(#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":\#(binBytes)}],"bufferViews":[{"buffer":0,"byteLength":\#(view)}]}"#.utf8)
        while json.count < jsonBytes || json.count % 4 != 0 { json.append(0x20) }
        let total = 12 + 8 + json.count + 8 + binBytes
        return Array("glTF".utf8) + le32(2) + le32(total) + le32(json.count) + Array("JSON".utf8) + json
            + le32(binBytes) + [0x42, 0x49, 0x4E, 0x00] + [UInt8](repeating: 0, count: binBytes)
    }

    /// A lossless WebP container of `width` × `height` (the header only: no pixel data a decoder
    /// would accept, which the worker does not decode).
    static func webp(width: Int = 4, height: Int = 3) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        let body: [UInt8] = [0x2F] + le32(bits) + [UInt8](repeating: 0, count: 7)
        let chunk = Array("VP8L".utf8) + le32(body.count) + body
        return Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk
    }

    /// A manifest with every member the schema requires.
    static func manifest(schemaVersion: Int = 7, versionId: String = "v", roomId: String = "r") -> [UInt8] {
        var members = OutputStructure.manifestRequired.map { #""\#($0)":null"# }
        members[0] = #""schema_version":\#(schemaVersion)"#
        members[2] = #""version_id":"\#(versionId)""#
        members[3] = #""room_id":"\#(roomId)""#
        return Array(("{" + members.joined(separator: ",") + "}").utf8)
    }

    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
}
