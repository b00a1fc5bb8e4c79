import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker submit --usdz FILE [--roomplan FILE] …`: puts local files into storage and
/// inserts a queued version for them, the way the app's upload does (for local runs, demos and
/// tests).
struct SubmitCommand {
    static let help = """
        USAGE: transcode-worker submit --usdz FILE [--roomplan FILE] [--room ROOM_ID] [--version VERSION_ID]
                                       [--name TEXT] [--max-attempts N] [--redacted-textures DIR] [options]

        Copies a scan into storage (--storage-url) and queues it:
          rooms/<room>/versions/<version>/source.usdz           the USDZ
          rooms/<room>/versions/<version>/roomplan.json         the CapturedRoom JSON, when given
          rooms/<room>/versions/<version>/redacted/<relpath>    each file under --redacted-textures DIR
        then inserts the room (when new), a `queued` room_versions row pointing at those keys and
        one `redactions` row per replacement texture, in one transaction. The insert wakes the
        workers. Prints the version id alone on the first line, so scripts can capture it:
          VERSION=$(transcode-worker submit --usdz room.usdz | head -n 1)

        OPTIONS:
          --usdz FILE               The RoomPlan USDZ (required).
          --roomplan FILE           The CapturedRoom JSON exported with it (default: none).
          --room ROOM_ID            Add the version to this room (a UUID; created when new).
                                    Default: a new room with a random id.
          --version VERSION_ID      The version's id (a UUID). Default: a random id.
          --name TEXT               The room's name when it is created (default: the USDZ file
                                    name without its extension).
          --max-attempts N          The version's max_attempts (default 5).
          --redacted-textures DIR   Face-blurred replacement textures: DIR/<path> replaces the
                                    package texture at <path> (or the one with that file name).
        \(DatabaseOptions.helpLines)

        JSON (--json): {"version_id", "room_id", "status": "queued", "storage_url",
          "source_usdz_path", "source_json_path", "redactions": [{"texture_path", "storage_key"}]}

        EXIT STATUS: 0 success, 2 usage error, 3 a file cannot be read or the version id exists,
        4 database, storage or internal error.
        """

    var options: DatabaseOptions
    var usdz: String
    var roomplan: String?
    var roomId: String
    var versionId: String
    var name: String
    var maxAttempts: Int?
    var redactedDir: String?

    init(_ args: [String]) throws {
        var usdz: String?, roomplan: String?, room: String?, version: String?, name: String?, redacted: String?
        var maxAttempts: Int?
        options = try DatabaseOptions(args) { flag, value in
            switch flag {
            case "--usdz":
                guard usdz == nil else { throw UsageError("--usdz is given twice: a version has one USDZ") }
                usdz = try value()
            case "--roomplan":
                guard roomplan == nil else { throw UsageError("--roomplan is given twice: a version has one RoomPlan JSON") }
                roomplan = try value()
            case "--room": room = try value()
            case "--version": version = try value()
            case "--name": name = try value()
            case "--redacted-textures": redacted = try value()
            case "--max-attempts":
                let v = try value()
                guard let n = Int(v), n >= 1, n <= Int(Int16.max) else {
                    throw UsageError("--max-attempts needs an integer from 1 to \(Int16.max), got '\(v)'")
                }
                maxAttempts = n
            default: return false
            }
            return true
        }
        if !options.positional.isEmpty { throw UsageError("submit takes no arguments (use --usdz FILE)") }
        guard let usdz else { throw UsageError("submit needs --usdz FILE") }
        self.usdz = usdz
        self.roomplan = roomplan
        self.redactedDir = redacted
        self.maxAttempts = maxAttempts
        roomId = try room.map { try DatabaseOptions.uuid($0, "--room") } ?? UUID().uuidString.lowercased()
        versionId = try version.map { try DatabaseOptions.uuid($0, "--version") } ?? UUID().uuidString.lowercased()
        let base = (usdz as NSString).lastPathComponent
        self.name = name ?? ((base as NSString).deletingPathExtension.isEmpty ? base : (base as NSString).deletingPathExtension)
    }

    func run() throws -> Int32 {
        let store = try options.openStorage()
        // Everything to upload, read before anything is written.
        let prefix = StorageConfinement.prefix(options.config.sourcePrefixTemplate, roomId: roomId, versionId: versionId)
        var files: [(key: String, bytes: [UInt8], contentType: String)] = []
        var redactions: [(texturePath: String, storageKey: String)] = []
        do {
            files.append((prefix + "source.usdz", try Self.read(usdz), "model/vnd.usdz+zip"))
            if let roomplan { files.append((prefix + "roomplan.json", try Self.read(roomplan), "application/json")) }
            if let redactedDir {
                let paths = try Self.files(under: redactedDir)
                if paths.isEmpty { throw ReadFailure(path: redactedDir, reason: "contains no files") }
                for rel in paths {
                    let key = prefix + "redacted/" + rel
                    try ObjectKey.validate(key)
                    files.append((key, try Self.read(redactedDir + "/" + rel), Self.contentType(rel)))
                    redactions.append((rel, key))
                }
            }
        } catch let f as ReadFailure {
            return options.fail(code: "INPUT_UNREADABLE", message: "\(f.path): \(f.reason)", status: ExitStatus.invalidInput,
                                extra: ["path": .string(f.path)])
        } catch let e as StorageError {
            return options.fail(code: e.code.rawValue, message: e.message, status: ExitStatus.invalidInput)
        }

        return try options.withConnection { (connection: PGConnection) throws -> Int32 in
            let queue = QueueStore(connection: connection)
            // Never overwrite the sources of a version that exists.
            if try queue.show(versionId: versionId) != nil { return versionExists() }
            for f in files { try store.put(f.key, bytes: f.bytes, contentType: f.contentType) }
            do {
                try queue.submit(versionId: versionId, roomId: roomId, roomName: name, usdzKey: files[0].key,
                                 jsonKey: roomplan == nil ? nil : prefix + "roomplan.json", maxAttempts: maxAttempts,
                                 redactions: redactions)
            } catch let e as DatabaseError where e.sqlState == "23505" {
                // Inserted by someone else since the check above: the objects are theirs now too.
                return versionExists()
            } catch {
                for f in files { try? store.delete(f.key) }
                throw error
            }
            if options.json {
                let jsonPath: JSONValue = roomplan == nil ? .null : .string(prefix + "roomplan.json")
                let redactionList: [JSONValue] = redactions.map { (r) -> JSONValue in
                    .object(["texture_path": .string(r.texturePath), "storage_key": .string(r.storageKey)])
                }
                var object: [String: JSONValue] = [:]
                object["version_id"] = .string(versionId)
                object["room_id"] = .string(roomId)
                object["status"] = .string("queued")
                object["storage_url"] = .string(store.location)
                object["source_usdz_path"] = .string(files[0].key)
                object["source_json_path"] = jsonPath
                object["redactions"] = .array(redactionList)
                options.emitJSON(object)
            } else {
                options.emit(versionId)
                options.emit("queued version \(versionId) of room \(roomId) (\(name))")
                for f in files { options.emit("  stored \(f.key)  \(f.bytes.count) bytes") }
                options.emit("  in \(store.location)")
            }
            return ExitStatus.ok
        }
    }

    private func versionExists() -> Int32 {
        options.fail(code: "VERSION_EXISTS", message: "version \(versionId) already exists; submit creates new versions only",
                     status: ExitStatus.invalidInput, extra: ["version_id": .string(versionId)])
    }

    /// A local file that cannot be used.
    private struct ReadFailure: Error {
        var path: String
        var reason: String
    }

    private static func read(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReadFailure(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw ReadFailure(path: path, reason: "is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReadFailure(path: path, reason: "cannot be read")
        }
        return [UInt8](data)
    }

    /// Relative paths of the regular files under `dir`, sorted.
    private static func files(under dir: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReadFailure(path: dir, reason: "is not a directory")
        }
        guard let walker = FileManager.default.enumerator(atPath: dir) else {
            throw ReadFailure(path: dir, reason: "cannot be listed")
        }
        var out: [String] = []
        while let rel = walker.nextObject() as? String {
            var sub: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + rel, isDirectory: &sub), !sub.boolValue {
                out.append(rel)
            }
        }
        return out.sorted()
    }

    private static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "json": return "application/json"
        case "usdz": return "model/vnd.usdz+zip"
        default: return "application/octet-stream"
        }
    }
}
