import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A synchronous HTTP/1.1 client for callers on plain threads (Edge Function callbacks, Realtime
/// broadcasts, storage REST calls). Built on URLSession: one process-wide session with an
/// ephemeral configuration (no cache, no cookies, no stored credentials) serves every client, so
/// `send` may be called from many threads at once.
///
/// Behaviour:
/// * Redirects are never followed: a 3xx comes back as the response.
/// * `Content-Length` is always explicit (from the body; `0` for an empty POST, PUT or PATCH), and a
///   body without a caller's `Content-Type` is sent as `application/octet-stream`.
/// * The response body is capped at `maxResponseBytes`; a larger (announced or received) body
///   aborts the exchange with `HTTP_RESPONSE_TOO_LARGE`.
/// * The request's `timeout` bounds the whole exchange.
/// * Retrying is the caller's job (`HTTPClientError.isRetryable` says when it can help).
///
/// Proxies come only from the environment variables libcurl reads (`http_proxy`, `https_proxy`,
/// `no_proxy`); with a proxy set, loopback hosts need an entry in `no_proxy` (scripts/test.sh sets
/// one). Requests carry `User-Agent: transcode-worker` unless the caller sets one.
public final class HTTPClient: Sendable {
    /// The default response body cap: 1 MiB.
    public static let defaultMaxResponseBytes = 1 << 20

    /// The largest response body accepted, in bytes.
    public let maxResponseBytes: Int

    /// A client with a response body cap of `maxResponseBytes` bytes. Clients are cheap: they
    /// share one URLSession.
    public init(maxResponseBytes: Int = HTTPClient.defaultMaxResponseBytes) {
        self.maxResponseBytes = max(0, maxResponseBytes)
    }

    /// Sends `request` and blocks the calling thread until the whole response has arrived, the
    /// request's timeout has passed, or the exchange failed. Returns every status (4xx and 5xx
    /// too); the body is a new array owned by the caller. Do not call it from a Swift concurrency
    /// task (it blocks its thread).
    ///
    /// Throws `HTTPClientError` with code `HTTP_INVALID_URL`, `HTTP_INVALID_REQUEST` (both
    /// permanent), `HTTP_TIMEOUT`, `HTTP_CONNECT_FAILED`, `HTTP_TRANSPORT_FAILED` (retryable) or
    /// `HTTP_RESPONSE_TOO_LARGE` (permanent).
    public func send(_ request: HTTPRequest) throws(HTTPClientError) -> HTTPResponse {
        let urlRequest = try makeURLRequest(request)
        let label = "\(request.method) \(Self.redacted(urlRequest.url!))"

        let shared = Self.shared
        let exchange = HTTPExchange(limit: maxResponseBytes)
        let task = shared.session.dataTask(with: urlRequest)
        shared.delegate.register(task, exchange)
        task.resume()

        if exchange.done.wait(timeout: .now() + request.timeout) == .timedOut {
            task.cancel()
            // The cancellation normally completes at once; never wait long for it.
            _ = exchange.done.wait(timeout: .now() + 2)
            shared.delegate.unregister(task)
            throw HTTPClientError(code: .timeout,
                                  message: "\(label): no response within \(Self.seconds(request.timeout)) s")
        }
        let outcome = exchange.outcome()
        if outcome.tooLarge {
            throw HTTPClientError(code: .responseTooLarge,
                                  message: "\(label): the response body is larger than \(maxResponseBytes) bytes")
        }
        if let error = outcome.error {
            throw Self.classify(error, label: label, timeout: request.timeout)
        }
        guard let response = outcome.response else {
            throw HTTPClientError(code: .transportFailed, message: "\(label): no HTTP response")
        }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            let key = "\(name)".lowercased()
            let text = "\(value)"
            headers[key] = headers[key].map { $0 + ", " + text } ?? text
        }
        return HTTPResponse(status: response.statusCode, headers: headers, body: outcome.body)
    }

    // MARK: - Request

    private func makeURLRequest(_ request: HTTPRequest) throws(HTTPClientError) -> URLRequest {
        guard let url = URL(string: request.url),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw HTTPClientError(code: .invalidURL,
                                  message: "not an absolute http(s) URL with a host: \(Self.redacted(request.url))")
        }
        guard request.timeout > 0, request.timeout.isFinite else {
            throw HTTPClientError(code: .invalidRequest, message: "the timeout must be a positive number of seconds")
        }
        guard Self.isToken(request.method) else {
            throw HTTPClientError(code: .invalidRequest, message: "invalid HTTP method")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        var hasContentType = false
        var hasUserAgent = false
        for (name, value) in request.headers {
            guard Self.isToken(name) else {
                throw HTTPClientError(code: .invalidRequest, message: "invalid header name")
            }
            // CR, LF or NUL would let a value start a new header line.
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPClientError(code: .invalidRequest, message: "header \(name) has a CR, LF or NUL in its value")
            }
            let lower = name.lowercased()
            if lower == "content-length" { continue }
            if lower == "content-type" { hasContentType = true }
            if lower == "user-agent" { hasUserAgent = true }
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if !hasUserAgent { urlRequest.setValue("transcode-worker", forHTTPHeaderField: "User-Agent") }
        let method = request.method.uppercased()
        if !request.body.isEmpty {
            if !hasContentType { urlRequest.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type") }
            urlRequest.setValue(String(request.body.count), forHTTPHeaderField: "Content-Length")
            urlRequest.httpBody = Data(request.body)
        } else if method == "POST" || method == "PUT" || method == "PATCH" {
            urlRequest.setValue("0", forHTTPHeaderField: "Content-Length")
        }
        return urlRequest
    }

    /// RFC 9110 token characters.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    // MARK: - Errors

    private static func classify(_ error: any Error, label: String, timeout: Double) -> HTTPClientError {
        let ns = error as NSError
        guard ns.domain == NSURLErrorDomain else {
            return HTTPClientError(code: .transportFailed, message: "\(label): \(ns.localizedDescription)")
        }
        switch ns.code {
        case NSURLErrorTimedOut:
            return HTTPClientError(code: .timeout, message: "\(label): no response within \(seconds(timeout)) s")
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed,
             NSURLErrorNotConnectedToInternet, NSURLErrorInternationalRoamingOff, NSURLErrorCallIsActive,
             NSURLErrorDataNotAllowed, NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted,
             NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateHasUnknownRoot,
             NSURLErrorServerCertificateNotYetValid, NSURLErrorClientCertificateRejected:
            return HTTPClientError(code: .connectFailed, message: "\(label): cannot connect (\(ns.localizedDescription))")
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
            return HTTPClientError(code: .invalidURL, message: "\(label): \(ns.localizedDescription)")
        default:
            return HTTPClientError(code: .transportFailed, message: "\(label): \(ns.localizedDescription)")
        }
    }

    /// `scheme://host[:port]/path` without user info, query or fragment, for messages.
    private static func redacted(_ url: URL) -> String {
        guard let scheme = url.scheme, let host = url.host else { return "(invalid URL)" }
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)\(url.path)"
    }

    private static func redacted(_ text: String) -> String {
        URL(string: text).map { redacted($0) } ?? "(unparseable URL)"
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: - The shared session

    private struct Shared: Sendable {
        let session: URLSession
        let delegate: HTTPSessionDelegate
    }

    /// Created on first use (static initialisation is thread-safe) and kept for the process.
    private static let shared: Shared = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.timeoutIntervalForRequest = 60
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let delegate = HTTPSessionDelegate()
        let queue = OperationQueue()
        queue.name = "HTTPClient.delegate"
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        return Shared(session: session, delegate: delegate)
    }()
}

/// The state of one request in flight, filled in by the session delegate and read by the thread
/// waiting in `send`.
private final class HTTPExchange: @unchecked Sendable {
    let limit: Int
    /// Signalled once, when the task completes.
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var response: HTTPURLResponse?
    private var body: [UInt8] = []
    private var error: (any Error)?
    private var tooLarge = false

    init(limit: Int) { self.limit = limit }

    /// Records the response head; false when the announced length is already over the limit.
    func receive(_ response: URLResponse) -> Bool {
        lock.withLock {
            self.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(limit) { tooLarge = true }
            return !tooLarge
        }
    }

    /// Appends body bytes; false when the body would grow over the limit (the bytes are dropped).
    func receive(_ data: Data) -> Bool {
        lock.withLock {
            guard !tooLarge, body.count + data.count <= limit else {
                tooLarge = true
                body = []
                return false
            }
            body.append(contentsOf: data)
            return true
        }
    }

    func complete(_ error: (any Error)?) {
        lock.withLock { self.error = error }
        done.signal()
    }

    func outcome() -> (response: HTTPURLResponse?, body: [UInt8], error: (any Error)?, tooLarge: Bool) {
        lock.withLock { (response, body, error, tooLarge) }
    }
}

/// The one delegate of the shared session: routes callbacks to the exchange of each task and
/// refuses every redirect.
private final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: HTTPExchange] = [:]

    func register(_ task: URLSessionTask, _ exchange: HTTPExchange) {
        lock.withLock { exchanges[task.taskIdentifier] = exchange }
    }

    func unregister(_ task: URLSessionTask) {
        _ = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier) }
    }

    private func exchange(_ task: URLSessionTask) -> HTTPExchange? {
        lock.withLock { exchanges[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let exchange = exchange(dataTask), exchange.receive(response) else {
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(dataTask) else { return }
        if !exchange.receive(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error)
    }
}
