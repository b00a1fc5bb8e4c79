extension DatabaseOptions {
    /// Opens `config.storageURL`. Throws `UsageError` for a malformed URL, `StorageError` when
    /// the store cannot be opened.
    func openStorage() throws -> any ObjectStore {
        do {
            return try StorageURL.open(config.storageURL)
        } catch {
            // (A `catch … where` on a typed throw makes the 6.3 compiler spin in its SIL passes.)
            if error.code == StorageError.urlInvalid { throw UsageError("--storage-url: \(error.message)") }
            throw error
        }
    }
}
