import SceneModel
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs independent iterations on every core (`ParallelLoop`: threads of its own, not Dispatch's
/// pool). Callers write disjoint memory per iteration, so results never depend on scheduling.
enum Parallel {
    private final class Counter: Sendable {
        let next = Atomic<Int>(0)
    }

    /// Online processors (at least 1).
    static let workers: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    static func forEach(_ iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 0 else { return }
        if iterations == 1 {
            body(0)
            return
        }
        ParallelLoop.run(iterations, body)
    }

    /// Runs `tasks` tasks on `workers` workers that take the next task when free; each worker
    /// first builds its state once (`setUp`, e.g. scratch buffers) and passes it to every task it
    /// runs, then `tearDown` releases it.
    static func forEachTask<State>(
        _ tasks: Int, setUp: () -> State, tearDown: (State) -> Void, _ body: (inout State, Int) -> Void
    ) {
        guard tasks > 0 else { return }
        let n = min(workers, tasks)
        let counter = Counter()
        forEach(n) { _ in
            var state = setUp()
            while true {
                let t = counter.next.wrappingAdd(1, ordering: .relaxed).oldValue
                if t >= tasks { break }
                body(&state, t)
            }
            tearDown(state)
        }
    }
}
