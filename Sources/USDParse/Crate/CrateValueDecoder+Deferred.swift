/// Deferred decoding of large arrays: the header is read and checked against the limits and the
/// bytes available when the layer is read; the elements are decoded on first use by a fresh decoder
/// (thread-safe: it shares only immutable tables, the bytes and the thread-safe budget).
extension CrateValueDecoder {
    /// Arrays whose decoded size would be at least this many bytes are deferred (64 KiB).
    static let deferredArrayBytes = 64 << 10

    /// A `.deferred` value for a large array, or nil when the array is small enough to decode now.
    /// Throws what the eager decoder would throw for a header that cannot be valid.
    func deferredArray(
        _ rep: CrateValueRep, _ type: CrateType, _ valueType: SdfValueType
    ) throws(USDParseError) -> SdfValue? {
        let (c, count) = try arrayHeader(rep)
        let what = "\(valueType.rawValue)[\(count)]"
        let decoded = try Checked.bytes(try Checked.bytes(count, valueType.components, what), type.componentSize, what)
        guard decoded >= Self.deferredArrayBytes else { return nil }
        let remaining = view.count - c.offset
        let compressible = rep.isCompressed && count >= Self.minCompressedCount
            && ((type == .int || type == .uint || type == .int64 || type == .uint64) && version.atLeast(0, 5)
                || (type == .half || type == .float || type == .double) && version.atLeast(0, 6))
        if compressible {
            // At least 2 bits per element after integer coding, and LZ4 expands at most 255×.
            let (bound, overflow) = remaining.multipliedReportingOverflow(by: 4 * 255)
            guard overflow || count <= bound else {
                throw USDParseError(.corrupt, "\(what) cannot be encoded in the \(remaining) bytes that follow")
            }
        } else {
            guard decoded <= remaining else {
                throw USDParseError(
                    .truncated, "\(what) needs \(decoded) bytes at offset \(c.offset) past the end of the file",
                    byteOffset: c.offset)
            }
        }
        let view = self.view, version = self.version, tables = self.tables, limits = self.limits
        let budget = self.budget
        return .deferred(DeferredValue(summary: what, elementCount: count) {
            let decoder = CrateValueDecoder(view: view, version: version, tables: tables, limits: limits, budget: budget)
            do throws(USDParseError) {
                return try decoder.decodeArray(rep, type, valueType)
            } catch {
                throw error.adding(format: .usdc, section: CrateReader.valuesSection, byteOffset: Int(rep.payload))
            }
        })
    }
}
