import Foundation

/// The `fuzz-<target>` executables outside fuzzing builds: run a target's body on files and print
/// each outcome, so that a crash input can be reproduced and debugged without libFuzzer.
public enum FuzzReplay {
    /// Runs `target` on every file named in `arguments` (a directory stands for the files in it,
    /// sorted by name) and prints `PATH: outcome` for each. Exits with status 2 on a usage error or
    /// an unreadable file, otherwise 0 (a refused input is a normal outcome).
    public static func main(_ target: FuzzTarget, arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print("usage: fuzz-\(target.name) FILE|DIR...")
            print("Runs the \(target.name) fuzz target's body on each file and prints the outcome.")
            print("Target: \(target.summary)")
            exit(arguments.isEmpty ? 2 : 0)
        }
        let fm = FileManager.default
        var paths: [String] = []
        for arg in arguments {
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: arg, isDirectory: &isDir), isDir.boolValue {
                let names = ((try? fm.contentsOfDirectory(atPath: arg)) ?? []).sorted()
                paths += names.map { (arg as NSString).appendingPathComponent($0) }
            } else {
                paths.append(arg)
            }
        }
        for path in paths {
            guard let data = fm.contents(atPath: path) else {
                FileHandle.standardError.write(Data("fuzz-\(target.name): cannot read \(path)\n".utf8))
                exit(2)
            }
            let outcome = target.run([UInt8](data))
            print("\(path): \(outcome)")
        }
        exit(0)
    }
}
