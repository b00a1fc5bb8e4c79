import Foundation
import TestSupport
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerCore

/// PostgREST's handling of a call made with a user's JWT, as `transcode-retry` makes it:
/// `apikey` must be one of the project's keys (else 401, the gateway's answer); the
/// `Authorization: Bearer` JWT must be HS256-signed with the project's JWT secret and unexpired
/// (else 401 `PGRST301` / `PGRST303`); the call then runs in a transaction as the token's `role`
/// (`anon`, `authenticated` or `service_role`) with `request.jwt.claims` and
/// `request.jwt.claim.sub` set, exactly as PostgREST hands them to the database.
extension PostgRESTStandIn {
    static let retryPath = "/rest/v1/rpc/transcode_app_retry"
    /// The project's JWT secret (what signs user sessions) and its publishable key.
    static let jwtSecret = "edge-jwt-secret-0123456789abcdef0123456789"
    static let publishableKey = "sb_publishable_edgetest0123456789"

    static let retrySQL = "SELECT transcode_app_retry($1::uuid)::text AS r"

    static func userCall(_ request: RecordedRequest, serviceKey: String, databaseURL: String) -> LoopbackHTTPServer.Response {
        guard let key = request.headers["apikey"], key == publishableKey || key == serviceKey else {
            return json(401, ["message": "Invalid API key", "hint": "Double check the apikey header."])
        }
        let auth = request.headers["authorization"] ?? ""
        guard auth.hasPrefix("Bearer "), let claims = TestJWT.verify(String(auth.dropFirst(7)), secret: jwtSecret) else {
            return error(401, code: "PGRST301", message: "JWT could not be decoded or has an invalid signature")
        }
        if let exp = claims["exp"] as? Int, exp <= Int(Date().timeIntervalSince1970) {
            return error(401, code: "PGRST303", message: "JWT expired")
        }
        let role = claims["role"] as? String ?? "anon"
        guard ["anon", "authenticated", "service_role"].contains(role) else {
            return error(401, code: "PGRST301", message: "role not allowed")
        }
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
              Set(body.keys) == ["p_version_id"] else {
            return error(404, code: "PGRST202", message: "Could not find the function public.transcode_app_retry with these parameters")
        }
        let claimsText = String(decoding: (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        return run(retrySQL, [body["p_version_id"] as? String], role: role, claims: claimsText, sub: claims["sub"] as? String,
                   function: "transcode_app_retry", databaseURL: databaseURL)
    }
}

/// HS256 JSON Web Tokens as Supabase Auth issues them, for the tests' users.
enum TestJWT {
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { Array($0) }
    }

    /// A token with `claims`, signed with `secret`.
    static func sign(_ claims: [String: Any], secret: String = PostgRESTStandIn.jwtSecret) -> String {
        let header = base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64URL(Array((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data()))
        let signature = Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(header).\(payload)".utf8))
        return "\(header).\(payload).\(base64URL(signature))"
    }

    /// A signed-in user's session token, valid for an hour (or expired an hour ago).
    static func user(_ id: String, expired: Bool = false) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return sign(["sub": id, "role": "authenticated", "aud": "authenticated", "exp": expired ? now - 3600 : now + 3600])
    }

    /// The claims of a token signed with `secret` with `alg` HS256; nil otherwise.
    static func verify(_ token: String, secret: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = decodeBase64URL(parts[0]), let payloadBytes = decodeBase64URL(parts[1]),
              let signature = decodeBase64URL(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
              header["alg"] as? String == "HS256" else { return nil }
        let expected = Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(parts[0]).\(parts[1])".utf8))
        guard expected == signature else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(payloadBytes))) as? [String: Any]
    }
}
