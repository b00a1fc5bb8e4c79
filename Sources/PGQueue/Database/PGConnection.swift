import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One Postgres session through libpq (the only file that calls libpq).
///
/// Statements use `PQexecParams` with text parameters and unnamed statements only, so the
/// connection also works through a pooler in session mode. Calls are serialized by an internal
/// lock, so one connection may be shared between threads, but each call blocks its thread: the
/// worker gives every long-lived user (listener, heartbeats, each job) a connection of its own.
///
/// A broken connection is reset on the next call (and `LISTEN`s are re-issued), so callers retry
/// a retryable `DatabaseError` without re-opening anything.
public final class PGConnection: @unchecked Sendable {
    private var conn: OpaquePointer?
    private let lock = NSLock()
    private var channels: [String] = []
    private let setup: [String]
    /// The `application_name` the session was opened with.
    public let applicationName: String
    /// The session's `statement_timeout`, seconds (0: none).
    public let statementTimeoutSeconds: Int

    /// Opens a session.
    ///
    /// - Parameters:
    ///   - url: a libpq connection string or `postgresql://` URL (never logged).
    ///   - applicationName: shown in `pg_stat_activity`.
    ///   - statementTimeoutSeconds: server-side limit on every statement (0: none).
    ///   - connectTimeoutSeconds: how long to wait for the server.
    /// - Throws: `DatabaseError` `DB_CONNECT_FAILED` (retryable).
    public init(url: String, applicationName: String = "transcode-worker",
                statementTimeoutSeconds: Int = 30, connectTimeoutSeconds: Int = 5) throws(DatabaseError) {
        var setup = ["SET idle_in_transaction_session_timeout = '60s'", "SET client_min_messages = warning"]
        if statementTimeoutSeconds > 0 { setup.append("SET statement_timeout = '\(statementTimeoutSeconds)s'") }
        self.setup = setup
        self.applicationName = applicationName
        self.statementTimeoutSeconds = statementTimeoutSeconds
        conn = Self.connect(url: url, applicationName: applicationName, timeout: connectTimeoutSeconds)
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.errorText(conn)
            PQfinish(conn)
            conn = nil
            throw DatabaseError(code: .connectFailed, message: "cannot connect to the database: \(message)")
        }
        for s in setup { try execLocked(s, []) }
    }

    deinit { close() }

    /// Closes the session (idempotent).
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        if let c = conn { PQfinish(c) }
        conn = nil
    }

    /// The server process id of this session (for tests and logs).
    public var backendPID: Int32 {
        lock.lock()
        defer { lock.unlock() }
        return conn.map { PQbackendPID($0) } ?? 0
    }

    /// Whether the session can serve another user as it is: open, outside any transaction,
    /// subscribed to no channel, and with nothing from the server waiting on its socket (an idle
    /// session is sent nothing, so anything there, such as the notice of a session the server
    /// ended or the end of the stream, makes it unfit). Does not block.
    public var isReusable: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let c = conn, channels.isEmpty, PQstatus(c) == CONNECTION_OK,
              PQtransactionStatus(c) == PQTRANS_IDLE else { return false }
        let fd = PQsocket(c)
        guard fd >= 0 else { return false }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) == 0
    }

    /// Runs one statement with text parameters (`$1`, `$2`, …; `nil` is NULL) and returns its rows.
    ///
    /// - Throws: `DB_QUERY_FAILED` (with SQLSTATE), `DB_CONNECTION_LOST` (retryable).
    @discardableResult
    public func query(_ sql: String, _ params: [String?] = []) throws(DatabaseError) -> [PGRow] {
        lock.lock()
        defer { lock.unlock() }
        try ensureConnected()
        return try execLocked(sql, params)
    }

    /// Runs a script of several statements (no parameters), e.g. one migration, in one round trip.
    public func execute(script: String) throws(DatabaseError) {
        lock.lock()
        defer { lock.unlock() }
        try ensureConnected()
        let res = PQexec(conn, script)
        defer { PQclear(res) }
        try check(res)
    }

    /// Subscribes this session to `channel` (an identifier; re-issued after a reconnect).
    public func listen(_ channel: String) throws(DatabaseError) {
        lock.lock()
        defer { lock.unlock() }
        try ensureConnected()
        try execLocked("LISTEN \(Self.quoteIdentifier(channel))", [])
        if !channels.contains(channel) { channels.append(channel) }
    }

    /// Waits up to `timeout` seconds for notifications on the `LISTEN`ed channels and returns all
    /// that arrived (possibly none). It also returns, with whatever arrived, as soon as `wakeFD`
    /// (a descriptor the caller owns; -1: none) is readable: another thread's way to stop the wait.
    ///
    /// - Throws: `DB_CONNECTION_LOST` when the session broke (the next call reconnects).
    public func waitForNotifications(timeout: Double, wakeFD: Int32 = -1) throws(DatabaseError) -> [PGNotification] {
        lock.lock()
        var found: [PGNotification]
        do {
            try ensureConnected()
            found = try drainNotifications()
        } catch {
            lock.unlock()
            throw error
        }
        guard found.isEmpty else { lock.unlock(); return found }
        let fd = PQsocket(conn)
        lock.unlock()
        guard fd >= 0 else { throw DatabaseError(code: .connectionLost, message: "no socket") }
        var pfds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        let ms = Int32(max(0, min(timeout, 3600)) * 1000)
        let r = poll(&pfds, wakeFD >= 0 ? 2 : 1, ms)
        if r < 0 && errno != EINTR {
            throw DatabaseError(code: .connectionLost, message: "poll failed: \(String(cString: strerror(errno)))")
        }
        lock.lock()
        defer { lock.unlock() }
        guard conn != nil else { return [] }
        found = try drainNotifications()
        return found
    }

    /// `"name"` with embedded quotes doubled.
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: - Internals (lock held)

    private static func connect(url: String, applicationName: String, timeout: Int) -> OpaquePointer? {
        // TCP keepalives and a user timeout make a half-open connection (a partition, a failover)
        // fail within ~30 s instead of blocking a thread for the kernel's retransmission timeout.
        let keys = ["dbname", "application_name", "connect_timeout", "keepalives", "keepalives_idle",
                    "keepalives_interval", "keepalives_count", "tcp_user_timeout"]
        let values = [url, applicationName, String(timeout), "1", "10", "5", "3", "30000"]
        let cKeys = keys.map { strdup($0) } + [nil]
        let cValues = values.map { strdup($0) } + [nil]
        defer {
            for p in cKeys { free(p) }
            for p in cValues { free(p) }
        }
        return cKeys.map { UnsafePointer($0) }.withUnsafeBufferPointer { k in
            cValues.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in
                PQconnectdbParams(k.baseAddress, v.baseAddress, 1)
            }
        }
    }

    private func ensureConnected() throws(DatabaseError) {
        guard let c = conn else { throw DatabaseError(code: .connectionLost, message: "connection is closed") }
        if PQstatus(c) == CONNECTION_OK { return }
        PQreset(c)
        guard PQstatus(c) == CONNECTION_OK else {
            throw DatabaseError(code: .connectionLost, message: "database connection lost: \(Self.errorText(c))")
        }
        for s in setup { try execLocked(s, []) }
        for ch in channels { try execLocked("LISTEN \(Self.quoteIdentifier(ch))", []) }
    }

    @discardableResult
    private func execLocked(_ sql: String, _ params: [String?]) throws(DatabaseError) -> [PGRow] {
        let cParams: [UnsafeMutablePointer<CChar>?] = params.map { $0.map { strdup($0) } ?? nil }
        defer { for p in cParams { free(p) } }
        let res = cParams.map { UnsafePointer($0) }.withUnsafeBufferPointer { buf in
            PQexecParams(conn, sql, Int32(params.count), nil, buf.baseAddress, nil, nil, 0)
        }
        defer { PQclear(res) }
        try check(res)
        guard PQresultStatus(res) == PGRES_TUPLES_OK else { return [] }
        let n = Int(PQntuples(res)), f = Int(PQnfields(res))
        let columns = (0..<f).map { String(cString: PQfname(res, Int32($0))) }
        var rows: [PGRow] = []
        rows.reserveCapacity(n)
        for r in 0..<n {
            var values: [String?] = []
            values.reserveCapacity(f)
            for c in 0..<f {
                if PQgetisnull(res, Int32(r), Int32(c)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(res, Int32(r), Int32(c))))
                }
            }
            rows.append(PGRow(columns: columns, values: values))
        }
        return rows
    }

    private func check(_ res: OpaquePointer?) throws(DatabaseError) {
        let status = res.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            if conn == nil || PQstatus(conn) != CONNECTION_OK {
                throw DatabaseError(code: .connectionLost, message: "database connection lost: \(Self.errorText(conn))")
            }
            var state: String?
            var message = Self.errorText(conn)
            if let res {
                if let s = PQresultErrorField(res, Int32(UInt8(ascii: "C"))) { state = String(cString: s) }
                if let m = PQresultErrorField(res, Int32(UInt8(ascii: "M"))) { message = String(cString: m) }
            }
            let code: DatabaseError.Code = state == "57014" ? .timeout : .queryFailed
            throw DatabaseError(code: code, message: message, sqlState: state)
        }
    }

    private func drainNotifications() throws(DatabaseError) -> [PGNotification] {
        guard PQconsumeInput(conn) == 1 else {
            throw DatabaseError(code: .connectionLost, message: "database connection lost: \(Self.errorText(conn))")
        }
        var out: [PGNotification] = []
        while let n = PQnotifies(conn) {
            out.append(PGNotification(channel: String(cString: n.pointee.relname),
                                      payload: String(cString: n.pointee.extra), senderPID: n.pointee.be_pid))
            PQfreemem(n)
        }
        return out
    }

    private static func errorText(_ c: OpaquePointer?) -> String {
        guard let c, let m = PQerrorMessage(c) else { return "no connection" }
        return String(cString: m).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
