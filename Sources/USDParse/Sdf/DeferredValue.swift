import Synchronization

/// A value whose decoding is postponed until first use: large crate arrays are validated when the
/// layer is read (header, count against limits and bytes) but their elements are decoded only when a
/// consumer asks, once, from any thread. Consumers normally never see this type: `SdfValue`'s
/// accessors and `UsdAttribute.value` resolve it; code that must surface decode errors calls
/// `SdfValue.resolve()`.
public final class DeferredValue: Hashable, Sendable, CustomStringConvertible {
    private let loader: @Sendable () throws -> SdfValue
    private let state = Mutex<Result<SdfValue, USDParseError>?>(nil)
    /// What is deferred, for messages (e.g. `point3f[1500000]`).
    public let summary: String
    /// Elements the array header declares (already checked against the limits), known without
    /// decoding; nil when the producer did not say.
    public let elementCount: Int?

    /// `load` decodes the value; it runs at most once and its result (or error) is kept.
    public init(summary: String, elementCount: Int? = nil, load: @escaping @Sendable () throws -> SdfValue) {
        self.summary = summary
        self.elementCount = elementCount
        self.loader = load
    }

    /// Decodes (first call) or returns the kept result. Throws the decoder's `USDParseError`.
    public func resolve() throws(USDParseError) -> SdfValue {
        try state.withLock { (cached: inout Result<SdfValue, USDParseError>?) throws(USDParseError) -> SdfValue in
            if cached == nil {
                do {
                    cached = .success(try loader())
                } catch let e as USDParseError {
                    cached = .failure(e)
                } catch {
                    cached = .failure(USDParseError(.corrupt, "\(error)"))
                }
            }
            return try cached!.get()
        }
    }

    /// True once the value has been decoded (successfully or not).
    public var isResolved: Bool { state.withLock { $0 != nil } }

    public var description: String { "deferred(\(summary))" }

    public static func == (a: DeferredValue, b: DeferredValue) -> Bool {
        if a === b { return true }
        return (try? a.resolve()) == (try? b.resolve())
    }

    public func hash(into h: inout Hasher) { h.combine(try? resolve()) }
}
