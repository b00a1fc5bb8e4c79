import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the independent iterations of a loop on every online processor, on threads of its own
/// (started for the call, joined before it returns) rather than on Dispatch's pool: on Linux that
/// pool watches its threads through `/proc/<tid>/stat` and stops the process when it cannot read
/// them, which the job child's sandbox (Landlock, no `/proc`) does not allow. Callers write
/// disjoint memory per iteration, so results never depend on scheduling.
public enum ParallelLoop {
    /// Online processors (at least 1).
    public static let processors: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// What the threads share: the next iteration to take, and the body.
    private final class Shared: @unchecked Sendable {
        let next = Atomic<Int>(0)
        let count: Int
        let body: (Int) -> Void

        init(count: Int, body: @escaping (Int) -> Void) {
            self.count = count
            self.body = body
        }

        /// Takes iterations until none is left.
        func work() {
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= count { return }
                body(i)
            }
        }
    }

    /// Calls `body(i)` for every `i` in `0..<iterations`, on up to `processors` threads (the
    /// calling thread among them). When a thread cannot be started, the others take its share.
    public static func run(_ iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 0 else { return }
        let threads = min(processors, iterations)
        guard threads > 1 else {
            for i in 0..<iterations { body(i) }
            return
        }
        withoutActuallyEscaping(body) { escapable in
            let shared = Shared(count: iterations, body: escapable)
            let context = Unmanaged.passUnretained(shared).toOpaque()
            var started: [pthread_t] = []
            for _ in 1..<threads {
                var thread = pthread_t()
                let rc = pthread_create(&thread, nil, { raw in
                    guard let raw else { return nil }
                    Unmanaged<Shared>.fromOpaque(raw).takeUnretainedValue().work()
                    return nil
                }, context)
                if rc == 0 { started.append(thread) }
            }
            shared.work()
            for thread in started { pthread_join(thread, nil) }
        }
    }
}
