import CLibCrypto

/// SHA-256 and HMAC-SHA-256 through libcrypto. The only file that calls libcrypto.
public enum Digest {
    /// SHA-256 of `bytes` as 32 raw bytes.
    public static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 32
        out.withUnsafeMutableBufferPointer { o in
            _ = EVP_Digest(bytes.baseAddress, bytes.count, o.baseAddress, &len, EVP_sha256(), nil)
        }
        return out
    }

    /// SHA-256 of `bytes` as 32 raw bytes.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { sha256($0) }
    }

    /// SHA-256 over bytes given in parts (a file read in chunks): `update` with each part in
    /// order, then `finish` once for the 32 raw bytes. Owns a libcrypto context, freed on deinit.
    public final class SHA256Stream {
        private let context: OpaquePointer?

        public init() {
            context = EVP_MD_CTX_new()
            _ = EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }

        deinit { EVP_MD_CTX_free(context) }

        /// Adds `bytes` to the digest.
        public func update(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count > 0 else { return }
            _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
        }

        /// The digest of everything added, as 32 raw bytes (call once).
        public func finish() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            var len: UInt32 = 32
            out.withUnsafeMutableBufferPointer { o in _ = EVP_DigestFinal_ex(context, o.baseAddress, &len) }
            return out
        }
    }

    /// HMAC-SHA-256 of `message` with `key`, as 32 raw bytes.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 32
        key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBufferPointer { o in
                    _ = HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                             m.count, o.baseAddress, &len)
                }
            }
        }
        return out
    }

    /// Lowercase hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var s = [UInt8]()
        s.reserveCapacity(bytes.count * 2)
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 15)])
        }
        return String(decoding: s, as: UTF8.self)
    }

    /// The value of one hexadecimal digit (`0-9`, `a-f`, `A-F`), or nil.
    public static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
