import Synchronization

/// The packages stored inside one package, each opened at most once per parse.
///
/// Opening a nested package reads its central directory and, for a deflated entry, inflates the
/// whole package (charged to the parse's decompression budget). Resolution and layer loading reach
/// the same nested packages many times, so the outcome of the first open (the package or its error)
/// is kept here and shared by every copy of the enclosing `USDZPackage` value. The cache holds at
/// most one value per `.usdz` entry of the enclosing archive, so its size is bounded by
/// `ParseLimits.maxZipEntries`; the bytes it keeps alive were already charged once.
///
/// Thread-safe (a mutex guards the table); a parse normally runs on one thread.
final class NestedPackageCache: Sendable {
    private struct State {
        var outcomes: [String: Result<USDZPackage, USDParseError>] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())

    /// The cached outcome for entry `name`, or the outcome of `open`, stored for the next caller.
    func package(
        _ name: String, open: () throws(USDParseError) -> USDZPackage
    ) throws(USDParseError) -> USDZPackage {
        if let known = state.withLock({ $0.outcomes[name] }) { return try known.get() }
        let outcome: Result<USDZPackage, USDParseError>
        do throws(USDParseError) { outcome = .success(try open()) } catch { outcome = .failure(error) }
        state.withLock { s in
            if s.outcomes[name] == nil { s.order.append(name) }
            s.outcomes[name] = outcome
        }
        return try outcome.get()
    }

    /// The packages opened successfully so far, with their entry names, in the order first opened.
    var opened: [(entry: String, package: USDZPackage)] {
        state.withLock { s in
            s.order.compactMap { name in (try? s.outcomes[name]?.get()).map { (name, $0) } }
        }
    }
}
