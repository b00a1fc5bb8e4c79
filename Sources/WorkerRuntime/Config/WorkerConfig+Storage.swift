import ObjectStorage

extension WorkerConfig {
    /// The store sources are read from (`storageURL`), and the one outputs are written to
    /// (`outputStorageURL`, else that same store). Throws `StorageError` as `StorageURL.open`.
    public func openStores() throws(StorageError) -> (sources: any ObjectStore, outputs: any ObjectStore) {
        let sources = try StorageURL.open(storageURL)
        guard let outputURL = outputStorageURL else { return (sources, sources) }
        return (sources, try StorageURL.open(outputURL))
    }
}
