#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The environment as the commands read it: the process's variables, plus the secrets taken out
/// of them at start (`withdraw`), which live on in this process's memory only.
///
/// Once withdrawn, a secret is no longer in the process environment (`unsetenv`), so nothing the
/// process starts inherits it and no library reads it from there; the readers of settings take
/// `current` instead. The block `/proc/<pid>/environ` shows is the one the process started with
/// and is not changed by `unsetenv`: `ProcessGuard.makeNonDumpable` is what keeps it from other
/// processes of the same uid.
public enum ProcessEnvironment {
    private static let held = Mutex<[String: String]>([:])

    /// The process's variables with the withdrawn secrets added back (a withdrawn name set again
    /// later keeps the withdrawn value).
    public static var current: [String: String] {
        var out = variables()
        for (name, value) in held.withLock({ $0 }) { out[name] = value }
        return out
    }

    /// The names of the secrets withdrawn so far, sorted.
    public static var withdrawnNames: [String] { held.withLock { $0.keys.sorted() } }

    /// Keeps `secrets` (name → value) in memory for `current` and removes every name in
    /// `secrets` and in `alsoRemove` from the process environment. Call before any other thread
    /// starts: `unsetenv` is not safe against concurrent readers of the environment.
    public static func withdraw(_ secrets: [String: String], alsoRemove: [String] = []) {
        held.withLock { h in
            for (name, value) in secrets { h[name] = value }
        }
        for name in Set(secrets.keys).union(alsoRemove) { unsetenv(name) }
    }

    /// The process environment as it is now (`environ`), a repeated name keeping its first value
    /// as `getenv` does.
    public static func variables() -> [String: String] {
        var out: [String: String] = [:]
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let pointer = entry?.pointee {
            let text = String(cString: pointer)
            if let eq = text.firstIndex(of: "=") {
                let name = String(text[..<eq])
                if out[name] == nil { out[name] = String(text[text.index(after: eq)...]) }
            }
            entry = entry.map { $0 + 1 }
        }
        return out
    }
}
