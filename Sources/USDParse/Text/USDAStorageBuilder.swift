/// Accumulates the components of a scalar or array value into the `SdfStorage` kind of its type,
/// converting each literal exactly as the crate writer would store it (floats via Double → Float,
/// halves as binary16 bits, integers range-checked).
struct USDAStorageBuilder {
    let kind: SdfStorage.Kind
    private(set) var count = 0
    private var bools: [Bool] = []
    private var uint8s: [UInt8] = []
    private var int32s: [Int32] = []
    private var uint32s: [UInt32] = []
    private var int64s: [Int64] = []
    private var uint64s: [UInt64] = []
    private var halves: [UInt16] = []
    private var floats: [Float] = []
    private var doubles: [Double] = []
    private var strings: [String] = []

    init(kind: SdfStorage.Kind) { self.kind = kind }

    /// Bytes one component occupies in memory (for the memory budget).
    var componentBytes: Int {
        switch kind {
        case .bool, .uint8: return 1
        case .half: return 2
        case .int32, .uint32, .float: return 4
        case .int64, .uint64, .double: return 8
        case .string: return 16
        }
    }

    enum AppendError: Error { case outOfRange(String), notNumeric }

    /// Appends one numeric component. Throws when the literal does not fit the storage type.
    mutating func append(_ number: USDANumber) throws(AppendError) {
        switch kind {
        case .bool: bools.append(number.isNonZero)
        case .uint8:
            guard let v = number.integer(as: UInt8.self) else { throw .outOfRange("uchar") }
            uint8s.append(v)
        case .int32:
            guard let v = number.integer(as: Int32.self) else { throw .outOfRange("int") }
            int32s.append(v)
        case .uint32:
            guard let v = number.integer(as: UInt32.self) else { throw .outOfRange("uint") }
            uint32s.append(v)
        case .int64:
            guard let v = number.integer(as: Int64.self) else { throw .outOfRange("int64") }
            int64s.append(v)
        case .uint64:
            guard let v = number.integer(as: UInt64.self) else { throw .outOfRange("uint64") }
            uint64s.append(v)
        case .half: halves.append(Half.fromFloat(Float(number.double)))
        case .float: floats.append(Float(number.double))
        case .double: doubles.append(number.double)
        case .string: throw .notNumeric
        }
        count += 1
    }

    /// Appends a bool component (`true` / `false` literals).
    mutating func append(bool: Bool) throws(AppendError) {
        guard kind == .bool else { throw .notNumeric }
        bools.append(bool)
        count += 1
    }

    /// Appends a string, token or asset component.
    mutating func append(string: String) {
        strings.append(string)
        count += 1
    }

    mutating func reserve(_ n: Int) {
        let n = min(max(n, 0), 1 << 16)
        switch kind {
        case .bool: bools.reserveCapacity(n)
        case .uint8: uint8s.reserveCapacity(n)
        case .int32: int32s.reserveCapacity(n)
        case .uint32: uint32s.reserveCapacity(n)
        case .int64: int64s.reserveCapacity(n)
        case .uint64: uint64s.reserveCapacity(n)
        case .half: halves.reserveCapacity(n)
        case .float: floats.reserveCapacity(n)
        case .double: doubles.reserveCapacity(n)
        case .string: strings.reserveCapacity(n)
        }
    }

    /// Reorders the last four components from text order (real, i, j, k) to storage order (i, j, k, real).
    mutating func rotateLastQuaternion() {
        func rotate<T>(_ a: inout [T]) {
            guard a.count >= 4 else { return }
            let base = a.count - 4
            let w = a[base]
            a[base] = a[base + 1]
            a[base + 1] = a[base + 2]
            a[base + 2] = a[base + 3]
            a[base + 3] = w
        }
        switch kind {
        case .half: rotate(&halves)
        case .float: rotate(&floats)
        case .double: rotate(&doubles)
        default: break
        }
    }

    /// The finished storage.
    func build() -> SdfStorage {
        switch kind {
        case .bool: return .bool(bools)
        case .uint8: return .uint8(uint8s)
        case .int32: return .int32(int32s)
        case .uint32: return .uint32(uint32s)
        case .int64: return .int64(int64s)
        case .uint64: return .uint64(uint64s)
        case .half: return .half(halves)
        case .float: return .float(floats)
        case .double: return .double(doubles)
        case .string: return .string(strings)
        }
    }
}
