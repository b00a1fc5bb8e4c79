#if FUZZING
import Glibc

/// libFuzzer's driver (`libclang_rt.fuzzer`, linked by `-sanitize=fuzzer`): parses the libFuzzer
/// flags in `argv` and calls `callback` with each input. Returns the process exit status.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target the running fuzz binary exercises (set once, before the driver starts).
nonisolated(unsafe) private var selectedTarget: FuzzTarget?
#endif

/// The `main` of every `fuzz-<target>` executable.
public enum FuzzMain {
    /// Built with `-D FUZZING -sanitize=fuzzer,address`: hands the command line to libFuzzer's
    /// driver with `target`'s body as the test function (every input returns 0; findings are traps,
    /// sanitizer reports, timeouts and running out of memory). Otherwise: `FuzzReplay.main`.
    /// Called through `@main` rather than linking libFuzzer's own `main`, because SwiftPM names the
    /// entry point of executables itself.
    public static func run(_ target: FuzzTarget) -> Never {
        #if FUZZING
        selectedTarget = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            _ = selectedTarget?.run(bytes)
            return 0
        }
        exit(status)
        #else
        FuzzReplay.main(target)
        #endif
    }
}
