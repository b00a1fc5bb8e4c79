"""A minimal PostgreSQL client (protocol 3.0, simple queries, LISTEN/NOTIFY): only the Python standard
library, with trust, password or md5 authentication."""

from __future__ import annotations

import hashlib
import os
import select
import socket
import struct
import time
import urllib.parse


class PGError(Exception):
    pass


class PG:
    def __init__(self, url: str, application_name: str = "bench-queue", timeout: float = 10.0):
        u = urllib.parse.urlparse(url)
        if u.scheme not in ("postgres", "postgresql"):
            raise PGError(f"not a postgresql:// URL: {url}")
        self.user = urllib.parse.unquote(u.username or os.environ.get("USER", "postgres"))
        self.password = urllib.parse.unquote(u.password) if u.password else None
        self.database = urllib.parse.unquote(u.path.lstrip("/")) or self.user
        self.sock = socket.create_connection((u.hostname or "127.0.0.1", u.port or 5432), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.notifications: list[tuple[float, str, str]] = []  # (arrival time, channel, payload)
        params = {"user": self.user, "database": self.database, "application_name": application_name,
                  "client_encoding": "UTF8"}
        body = struct.pack("!i", 196608) + b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in params.items()) + b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        while True:
            t, m = self._read()
            if t == b"R":
                code = struct.unpack("!i", m[:4])[0]
                if code == 0:
                    continue
                if code == 3 and self.password is not None:
                    self._send(b"p", self.password.encode() + b"\0")
                elif code == 5 and self.password is not None:
                    inner = hashlib.md5(self.password.encode() + self.user.encode()).hexdigest().encode()
                    self._send(b"p", b"md5" + hashlib.md5(inner + m[4:8]).hexdigest().encode() + b"\0")
                else:
                    raise PGError(f"unsupported authentication request {code} (use a trust or md5 cluster)")
            elif t == b"E":
                raise PGError(self._error_text(m))
            elif t == b"Z":
                break
        self.sock.settimeout(None)

    def _send(self, t: bytes, payload: bytes) -> None:
        self.sock.sendall(t + struct.pack("!i", len(payload) + 4) + payload)

    def _fill(self, n: int) -> None:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise PGError("the server closed the connection")
            self.buf += chunk

    def _read(self) -> tuple[bytes, bytes]:
        """Reads one message, keeping notifications aside."""
        while True:
            self._fill(5)
            t = self.buf[:1]
            n = struct.unpack("!i", self.buf[1:5])[0]
            self._fill(1 + n)
            m = self.buf[5:1 + n]
            self.buf = self.buf[1 + n:]
            if t == b"A":
                self._notification(m)
                continue
            if t in (b"N", b"S", b"K"):
                continue
            return t, m

    def _notification(self, m: bytes) -> None:
        rest = m[4:]
        channel, rest = rest.split(b"\0", 1)
        payload = rest.split(b"\0", 1)[0]
        self.notifications.append((time.time(), channel.decode(), payload.decode()))

    @staticmethod
    def _error_text(m: bytes) -> str:
        fields = {}
        for part in m.split(b"\0"):
            if part:
                fields[part[:1]] = part[1:].decode(errors="replace")
        return f"{fields.get(b'S', 'ERROR')}: {fields.get(b'M', '?')} (SQLSTATE {fields.get(b'C', '?')})"

    def query(self, sql: str) -> list[tuple]:
        """Runs one or more statements; returns the rows of the last result (text values, None for NULL)."""
        self._send(b"Q", sql.encode() + b"\0")
        rows: list[tuple] = []
        error = None
        while True:
            t, m = self._read()
            if t == b"T":
                rows = []
            elif t == b"D":
                count = struct.unpack("!h", m[:2])[0]
                pos, values = 2, []
                for _ in range(count):
                    length = struct.unpack("!i", m[pos:pos + 4])[0]
                    pos += 4
                    if length < 0:
                        values.append(None)
                    else:
                        values.append(m[pos:pos + length].decode())
                        pos += length
                rows.append(tuple(values))
            elif t == b"E":
                error = self._error_text(m)
            elif t == b"Z":
                break
        if error:
            raise PGError(error)
        return rows

    def scalar(self, sql: str):
        rows = self.query(sql)
        return rows[0][0] if rows else None

    def wait(self, timeout: float) -> None:
        """Collects the notifications that arrive within `timeout` seconds (into .notifications)."""
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                return
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return
            chunk = self.sock.recv(65536)
            if not chunk:
                raise PGError("the server closed the connection")
            self.buf += chunk
            while len(self.buf) >= 5:
                n = struct.unpack("!i", self.buf[1:5])[0]
                if len(self.buf) < 1 + n:
                    break
                t, m = self.buf[:1], self.buf[5:1 + n]
                self.buf = self.buf[1 + n:]
                if t == b"A":
                    self._notification(m)
                elif t == b"E":
                    raise PGError(self._error_text(m))

    def close(self) -> None:
        try:
            self._send(b"X", b"")
        except OSError:
            pass
        self.sock.close()


def quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"
