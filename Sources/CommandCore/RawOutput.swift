#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to a file descriptor: the whole text, retried on `EINTR` and short writes,
/// without Foundation's buffering, so a line reaches the reader (a parent process, a log
/// collector) as soon as it is written and concurrent writers never interleave within one call's
/// chunk. Errors (a closed pipe) drop the rest of the text.
public enum RawOutput {
    public static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                off += n
            }
        }
    }
}
