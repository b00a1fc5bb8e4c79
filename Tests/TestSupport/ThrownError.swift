/// The error `body` throws, of the type it declares (a `() throws(StorageError) in …` closure
/// gives a `StorageError?`), or nil when it returns.
public func thrownError<E: Error, T>(_ body: () throws(E) -> T) -> E? {
    do throws(E) {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
