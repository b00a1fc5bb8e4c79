@testable import ObjectStorage

/// An `ObjectStore` that forwards every call to another; the test stores subclass it and override
/// the calls they watch or break.
class ForwardingStore: ObjectStore, @unchecked Sendable {
    let base: any ObjectStore

    init(_ base: any ObjectStore) { self.base = base }

    func get(_ key: String, maxBytes: Int) throws(StorageError) -> [UInt8] { try base.get(key, maxBytes: maxBytes) }
    func put(_ key: String, bytes: [UInt8], contentType: String, cacheControl: String?) throws(StorageError) {
        try base.put(key, bytes: bytes, contentType: contentType, cacheControl: cacheControl)
    }
    func put(_ key: String, source: ObjectSource, contentType: String, cacheControl: String?) throws(StorageError) {
        try put(key, bytes: try Self.bytes(of: source, key: key), contentType: contentType, cacheControl: cacheControl)
    }
    func copy(_ source: String, to destination: String, contentType: String, cacheControl: String?) throws(StorageError) {
        try base.copy(source, to: destination, contentType: contentType, cacheControl: cacheControl)
    }
    func delete(_ key: String) throws(StorageError) { try base.delete(key) }
    func list(prefix: String) throws(StorageError) -> [String] { try base.list(prefix: prefix) }
    func listObjects(prefix: String) throws(StorageError) -> [StoredObject] { try base.listObjects(prefix: prefix) }
    func size(_ key: String) throws(StorageError) -> Int? { try base.size(key) }
    var location: String { base.location }
    var bucket: String { base.bucket }
    var keyPrefix: String { base.keyPrefix }
}

extension ForwardingStore {
    /// The bytes `source` holds, for test stores that record or alter writes as arrays.
    static func bytes(of source: ObjectSource, key: String) throws(StorageError) -> [UInt8] {
        var out: [UInt8] = []
        let e = source.forEachChunk { out.append(contentsOf: $0); return 0 }
        guard e == 0 else { throw StorageError.system(e, "cannot read the held \(key)", key: key, writing: true) }
        return out
    }
}
