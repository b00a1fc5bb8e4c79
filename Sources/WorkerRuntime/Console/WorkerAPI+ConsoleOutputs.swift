import WorkerCore
import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerHTTP

/// A version's outputs in the console: thumbnails shown, files listed and served from the output
/// store. Keys come from the row, which the backend can write, so a file is served only when its
/// key is below the version's own output root (`StorageConfinement.outputRoot`), the row's bucket
/// is this worker's output bucket, and the name is one the pipeline writes. Files are sent with a
/// sandboxing Content-Security-Policy (no script runs, not even in the report), and everything but
/// images, SVG, JSON and the report as attachments.
extension WorkerAPI {
    /// The largest output the console sends, bytes.
    static let consoleMaxFileBytes = 128 << 20

    /// The media type of an output file, by suffix.
    static func outputMediaType(_ name: String) -> String {
        let types = [(".webp", "image/webp"), (".glb", "model/gltf-binary"), (".json", "application/json"),
                     (".svg", "image/svg+xml"), (".pdf", "application/pdf"), (".dxf", "image/vnd.dxf"),
                     (".html", "text/html; charset=utf-8")]
        return types.first { name.hasSuffix($0.0) }?.1 ?? "application/octet-stream"
    }

    /// The directory of the version's current outputs (that of its manifest), when it is below
    /// the version's output root; else nil.
    static func revisionDirectory(_ v: PGRow) -> String? {
        guard let manifest = v["manifest_path"], let room = v["room_id"], let id = v["id"],
              let slash = manifest.lastIndex(of: "/") else { return nil }
        let dir = String(manifest[...slash])
        let root = StorageConfinement.outputRoot(roomId: room, versionId: id)
        guard (try? ObjectKey.validate(manifest)) != nil, dir.hasPrefix(root), dir.count > root.count else { return nil }
        return dir
    }

    /// Why the row's outputs are not served from this worker's store, or nil.
    func outputProblem(_ v: PGRow) -> String? {
        guard let store = outputStore else { return "this worker has no output store configured" }
        if let bucket = v["output_bucket"], bucket != store.bucket {
            return "the outputs are in bucket \(bucket), not in this worker's output bucket \(store.bucket)"
        }
        guard v["manifest_path"] != nil else { return "the version has no outputs yet" }
        guard Self.revisionDirectory(v) != nil else { return "the row's output paths are not below this version's output root" }
        return nil
    }

    func outputsSection(_ v: PGRow) -> String {
        let esc = ConsolePage.esc
        if let problem = outputProblem(v) {
            let paths = [("model", v["glb_path"]), ("manifest", v["manifest_path"])].filter { $0.1 != nil }
                .map { "<dt>\(esc($0.0))</dt><dd class=\"mono\">\(esc($0.1))</dd>" }.joined()
            return "<p class=\"muted\">Not shown: \(esc(problem)).</p>" + (paths.isEmpty ? "" : "<dl>\(paths)</dl>")
        }
        guard let store = outputStore, let dir = Self.revisionDirectory(v), let id = v["id"] else { return "" }
        let base = "/console/versions/\(ConsoleForm.encode(id))/files/"
        var figures: [String] = []
        if case .array(let thumbs)? = Self.consoleJSON(v["thumbnail_paths"]) {
            for t in thumbs.prefix(24) {
                guard let path = Self.scalar(t.member("path")), path.hasPrefix(dir) else { continue }
                let rel = String(path.dropFirst(dir.count))
                guard JobAttempt.ChildOutputs.isAllowedName(rel) else { continue }
                figures.append("<figure><img src=\"\(esc(base + rel))\" alt=\"\(esc(Self.scalar(t.member("kind"))))\" loading=\"lazy\">"
                               + "<figcaption>\(esc(Self.scalar(t.member("kind"))))</figcaption></figure>")
            }
        }
        var files = ""
        do throws(StorageError) {
            let objects = try store.listObjects(prefix: dir).filter { JobAttempt.ChildOutputs.isAllowedName(String($0.key.dropFirst(dir.count))) }
            if objects.contains(where: { $0.key == dir + OutputName.report }) {
                files += "<p><a class=\"button secondary\" href=\"\(esc(base + OutputName.report))\">Open the conversion report</a></p>"
            }
            files += ConsolePage.table(["File", "#Bytes"], objects.filter { !$0.key.contains("/thumbs/") }.map { o in
                let rel = String(o.key.dropFirst(dir.count))
                return ["<a href=\"\(esc(base + rel))\">\(esc(rel))</a>", String(o.bytes)]
            }, empty: "No file found under \(dir).")
        } catch {
            files = "<p class=\"muted\">The output store cannot list the files right now (\(esc(error.code.rawValue))).</p>"
        }
        return (figures.isEmpty ? "" : "<div class=\"thumbs\">\(figures.joined())</div>")
            + files + "<p class=\"muted mono\">\(esc(dir))</p>"
    }

    func outputFile(_ id: String, relative: String) -> HTTPServerResponse {
        let auth = ConsoleAuth(nonce: nil, csrf: nil)
        guard JobAttempt.ChildOutputs.isAllowedName(relative) else { return versionNotFound(auth) }
        return consoleDatabase(auth) { (store) throws(DatabaseError) in
            guard let v = try store.consoleVersion(id) else { return versionNotFound(auth) }
            if let problem = outputProblem(v) {
                return ConsolePage.response(status: 404, title: "Not served", body: "<h1>Not served</h1><p>\(ConsolePage.esc(problem)).</p>",
                                            navigation: nil)
            }
            guard let objects = outputStore, let dir = Self.revisionDirectory(v) else { return versionNotFound(auth) }
            let bytes: [UInt8]
            do throws(StorageError) {
                bytes = try objects.get(dir + relative, maxBytes: Self.consoleMaxFileBytes)
            } catch {
                let status = error.code == .notFound ? 404 : 502
                return ConsolePage.response(status: status, title: "Not available", body: """
                    <h1>Not available</h1><p>The output store answered \(ConsolePage.esc(error.code.rawValue)).</p>
                    """, navigation: nil)
            }
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            let inline = [".webp", ".svg", ".json", ".html"].contains { relative.hasSuffix($0) }
            return HTTPServerResponse(status: 200, headers: [
                ("Content-Type", Self.outputMediaType(relative)),
                ("Content-Disposition", "\(inline ? "inline" : "attachment"); filename=\"\(name)\""),
                ("Content-Security-Policy", "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'"),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "private, max-age=60"),
            ], body: bytes)
        }
    }
}
