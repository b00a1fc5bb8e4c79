import ObjectStorage
import WorkerCore

/// The console's signed session cookie and the CSRF token tied to it.
///
/// A session is `v1.<expiry>.<nonce>.<signature>`: the expiry in Unix seconds, 16 random bytes in
/// hex, and the HMAC-SHA-256 (hex) of `v1.<expiry>.<nonce>` under a key derived from the API
/// token. Nothing is stored on the server: a cookie is valid while its signature checks and its
/// expiry is ahead, and rotating `TRANSCODE_API_TOKEN` ends every session at once. The CSRF token
/// of a session is the HMAC of `csrf.<nonce>` under the same key, so a page can only post with
/// the token of the session that rendered it.
public struct ConsoleSession: Sendable {
    /// The cookie's name.
    public static let cookieName = "transcode_console"
    /// How long a sign-in lasts, seconds (8 hours).
    public static let lifetimeSeconds = 8 * 3600

    private let key: [UInt8]

    /// A session signer for `apiToken` (the bearer token of `/v1`; never stored in a cookie).
    public init(apiToken: String) {
        key = Digest.hmacSHA256(key: Array(apiToken.utf8), message: Array("transcode-console-session-v1".utf8))
    }

    /// A new session value valid until `now + lifetimeSeconds` (Unix seconds).
    public func issue(now: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let nonce = Digest.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let payload = "v1.\(now + Self.lifetimeSeconds).\(nonce)"
        return payload + "." + sign(payload)
    }

    /// The session's nonce when `value` is a session this key signed and `now` is before its
    /// expiry; nil otherwise (tampered, expired, malformed or signed under another token).
    public func verify(_ value: String, now: Int) -> String? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "v1", let expiry = Int(parts[1]), parts[2].utf8.count == 32,
              parts[3].utf8.count == 64 else { return nil }
        let expected = sign("v1.\(parts[1]).\(parts[2])")
        guard WorkerAPI.constantTimeEqual(Array(parts[3].utf8), Array(expected.utf8)), now < expiry else { return nil }
        return parts[2]
    }

    /// The CSRF token of the session with `nonce`.
    public func csrfToken(nonce: String) -> String { sign("csrf." + nonce) }

    /// True when `given` is the CSRF token of the session with `nonce` (compared in constant time).
    public func checkCSRF(nonce: String, given: String?) -> Bool {
        guard let given else { return false }
        return WorkerAPI.constantTimeEqual(Array(given.utf8), Array(csrfToken(nonce: nonce).utf8))
    }

    private func sign(_ payload: String) -> String {
        Digest.hex(Digest.hmacSHA256(key: key, message: Array(payload.utf8)))
    }
}
