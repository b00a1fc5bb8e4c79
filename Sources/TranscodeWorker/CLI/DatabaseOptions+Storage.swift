import ObjectStorage
import WorkerRuntime
import WorkerCore

extension DatabaseOptions {
    /// Opens `config.storageURL`. Throws `UsageError` for a malformed URL, `StorageError` when
    /// the store cannot be opened.
    func openStorage() throws -> any ObjectStore {
        try Self.open(config.storageURL, flag: "--storage-url")
    }

    /// Opens where outputs go: `config.outputStorageURL`, else `config.storageURL`. Throws like
    /// `openStorage`.
    func openOutputStorage() throws -> any ObjectStore {
        guard let url = config.outputStorageURL else { return try openStorage() }
        return try Self.open(url, flag: "--output-storage-url")
    }

    private static func open(_ url: String, flag: String) throws -> any ObjectStore {
        do {
            return try StorageURL.open(url)
        } catch {
            // (A `catch … where` on a typed throw makes the 6.3 compiler spin in its SIL passes.)
            if error.code == .urlInvalid { throw UsageError("\(flag): \(error.message)") }
            throw error
        }
    }
}
