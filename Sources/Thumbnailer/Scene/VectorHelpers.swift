/// Lane helpers of the renderer's hot loops: written out so that they inline, where the
/// standard library's generic forms compile to calls.

/// Lane-wise maximum and minimum of eight floats (the generic `pointwiseMax` does not vectorise).
@inline(__always) func vmax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: a .< b)
}
@inline(__always) func vmin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .< a)
}

/// Whether any or every lane of a mask is set. The standard `any`/`all` (and the generic lane
/// conversions) reduce through calls that are not inlined in the hot loops; these read the
/// mask's lanes (all ones or all zeros) as 64-bit words.
@inline(__always) func anyLane(_ m: SIMDMask<SIMD8<Int32>>) -> Bool {
    let w = unsafeBitCast(m, to: (UInt64, UInt64, UInt64, UInt64).self)
    return (w.0 | w.1 | w.2 | w.3) != 0
}
@inline(__always) func allLanes(_ m: SIMDMask<SIMD8<Int32>>) -> Bool {
    let w = unsafeBitCast(m, to: (UInt64, UInt64, UInt64, UInt64).self)
    return (w.0 & w.1 & w.2 & w.3) == .max
}
@inline(__always) func allLanes(_ m: SIMDMask<SIMD8<Int16>>) -> Bool {
    let w = unsafeBitCast(m, to: (UInt64, UInt64).self)
    return (w.0 & w.1) == .max
}

/// Lane-wise maximum of four floats and zero (NaN lanes become 0), without the generic
/// `pointwiseMax` call.
@inline(__always) func positivePart(_ v: SIMD4<Float>) -> SIMD4<Float> {
    v.replacing(with: 0, where: .!(v .> SIMD4<Float>.zero))
}

/// A mask's lanes as bytes, 1 where set and 0 elsewhere (little-endian lane order), without the
/// generic lane conversion.
@inline(__always) func laneBytes(_ m: SIMDMask<SIMD8<Int32>>) -> SIMD8<UInt8> {
    let w = unsafeBitCast(m, to: (UInt64, UInt64, UInt64, UInt64).self)
    @inline(__always) func pair(_ v: UInt64) -> UInt64 { (v & 1) | ((v >> 24) & 0x100) }
    return unsafeBitCast(pair(w.0) | pair(w.1) << 16 | pair(w.2) << 32 | pair(w.3) << 48, to: SIMD8<UInt8>.self)
}
@inline(__always) func laneBytes(_ m: SIMDMask<SIMD8<Int16>>) -> SIMD8<UInt8> {
    let w = unsafeBitCast(m, to: (UInt64, UInt64).self)
    @inline(__always) func quad(_ v: UInt64) -> UInt64 {
        (v & 1) | ((v >> 8) & 0x100) | ((v >> 16) & 0x1_0000) | ((v >> 24) & 0x100_0000)
    }
    return unsafeBitCast(quad(w.0) | quad(w.1) << 32, to: SIMD8<UInt8>.self)
}
