import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerCore

/// The owner's privacy detail: what was done with each `redactions` row, and a small crop of the
/// published texture around each blurred area, stored beside the upload in the private source
/// store (never in the public output bucket; the app shows it through a signed URL).
extension JobAttempt {
    /// The largest crop stored, bytes. (The crops are the child's outputs in
    /// `OutputName.privacyFolder`, stored in that folder below the version's source prefix.)
    static let maxCropBytes = 1 << 20

    /// Whether `path` is a crop the child may write: `privacy/<id>.webp` for the id of one of the
    /// version's rows with an area.
    static func cropRow(_ path: String, rows: [RedactionRow]) -> RedactionRow? {
        guard path.hasPrefix(OutputName.privacyFolder), path.hasSuffix(".webp") else { return nil }
        let id = String(path.dropFirst(OutputName.privacyFolder.count).dropLast(".webp".count))
        return rows.first { $0.id == id && $0.regionJSON != nil }
    }

    /// Stores the crops the child wrote (each checked against its reported size and hash, a name
    /// no row has is refused) and records on every row how it was applied. Throws
    /// `Interruption` (`OUTPUT_UPLOAD_FAILED` when storage refuses, retryable).
    func storePrivacyDetail(_ ws: JobWorkspace, report: ChildReport, rows: [RedactionRow]) throws(Interruption) {
        guard !rows.isEmpty else { return }
        let prefix = StorageConfinement.prefix(config.sourcePrefixTemplate, roomId: job.roomId, versionId: job.versionId)
        var crops: [String: String] = [:]
        for file in report.files where file.path.hasPrefix(OutputName.privacyFolder) {
            try checkStop()
            guard let row = Self.cropRow(file.path, rows: rows) else {
                throw .failed(.internalFault("CHILD_PROTOCOL: the output \(file.path) is no crop of this version's redactions",
                                             phase: .uploadingOutputs))
            }
            // The daemon's checked copy (its hash and WebP structure were checked when it was taken in).
            guard let source = report.intake.source(file.path), source.bytes == file.bytes, source.sha256 == file.sha256,
                  source.bytes <= Self.maxCropBytes else {
                throw .failed(.internalFault("CHILD_PROTOCOL: the crop \(file.path) does not match its report or is too large",
                                             phase: .uploadingOutputs))
            }
            let key = prefix + file.path
            do { try storage.put(key, source: source, contentType: "image/webp", cacheControl: nil) } catch {
                throw .failed(.upload(error))
            }
            crops[row.id] = key
        }
        for row in rows {
            var methods: [String] = []
            if row.storageKey != nil { methods.append("app_replacement") }
            if row.regionJSON != nil { methods.append("server_blur") }
            let key = crops[row.id]
            switch database("record a redaction", { (s) throws(DatabaseError) in
                try s.recordRedactionApplied(versionId: job.versionId, redactionId: row.id, methods: methods,
                                             cropPath: key, cropBucket: key == nil ? nil : storage.bucket)
            }) {
            case .success: break
            case .failure(let e):
                throw .failed(.internalFault("\(e.code): cannot record redaction \(row.id): \(e.message)", phase: .uploadingOutputs))
            }
        }
    }
}
