// swift-tools-version:6.0
// The CrowdRoom transcode worker: USDZ/USDC/USDA + RoomPlan JSON → layered .glb, manifest and thumbnails.
//
// Module rules (enforced by the dependency lists below, so a violation does not compile):
//  1. Feature modules (USDParse, Layering, GLBWriter, Thumbnailer, FloorPlan, Manifest) depend on SceneModel
//     (the shared vocabulary: scene, layered room, typed layer and category names, view camera,
//     the polygon triangulator, vector helpers), JSONCore (the one JSON value, writer and bounded
//     reader) and their own C wrappers only; they never import each other. They parse, build and
//     render bytes in memory: no IO, no logging.
//  2. The runtime targets never import a feature module, and neither does the daemon's CLI
//     (TranscodeWorker), so `transcode-worker` links no parser and cannot parse untrusted bytes:
//     JSONCore (leaf, shared with the features), CommandCore (leaf: clock, exit statuses, usage
//     errors, unbuffered output, the process guard and the environment with its secrets held
//     apart), WorkerCore (shared by the daemon and the job child: the child's
//     message lines, the previous revision's pack, SHA-256 and HMAC; libcrypto; re-exports
//     CommandCore), ObjectStorage (storage backends, the HTTP client, SigV4), PGQueue
//     (Postgres, schema, queue statements; libpq), WorkerHTTP (the HTTP server; libmicrohttpd) and
//     WorkerRuntime (the daemon: claim loop, job attempts in the sandboxed child, heartbeat,
//     completion, rescue, sweeps, metrics, API routes, configuration, JSON-lines logs).
//  3. Two composers and the daemon's CLI. JobPipeline: the pipeline over the feature modules, the
//     report, `convert` and the job child's `job-exec` (both in the `transcode-job` executable),
//     with WorkerCore as its only runtime module, so the child links none of the daemon's modules
//     or libraries. USDInspect: the `inspect` command over USDParse alone (the small
//     `transcode-inspect` executable, which loads no library of the pipeline's or the daemon's).
//     SourceFiles (bounded file reads, sibling assets confined to a folder) is the disk IO those
//     two share. TranscodeWorker: the CLI of `transcode-worker` (`run` and the operator commands)
//     over the runtime alone, so the daemon links no feature module, nor JobPipeline, USDInspect,
//     SourceFiles or SceneModel: its `convert`, `inspect` and `job-exec` execute `transcode-job
//     convert`, `transcode-inspect` and `transcode-job job-exec` found beside it, and its error
//     catalog spells out the feature modules' codes (a test compares them with the modules').
//  4. Each C library is wrapped by one system-library target and called from exactly one Swift file.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

func cLibrary(_ name: String, pkg: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkg, providers: [.apt([apt])])
}

/// The fuzz targets (`FuzzTarget.all`); each has a `fuzz-<name>` executable.
let fuzzTargets = ["zip", "crate", "usda", "compose", "roomplan", "texture", "convert"]

let package = Package(
    name: "transcode-worker",
    products: [
        .executable(name: "transcode-worker", targets: ["transcode-worker"]),
        .executable(name: "transcode-job", targets: ["transcode-job"]),
        .executable(name: "transcode-inspect", targets: ["transcode-inspect"]),
        .library(name: "TranscodeWorker", targets: ["TranscodeWorker"]),
    ],
    targets: [
        // C libraries (Debian packages installed by scripts/install-deps.sh).
        cLibrary("CZlib", pkg: "zlib", apt: "zlib1g-dev"),
        cLibrary("CLZ4", pkg: "liblz4", apt: "liblz4-dev"),
        cLibrary("CLibPNG", pkg: "libpng", apt: "libpng-dev"),
        cLibrary("CLibJPEG", pkg: "libjpeg", apt: "libjpeg62-turbo-dev"),
        cLibrary("CLibWebP", pkg: "libwebp", apt: "libwebp-dev"),
        cLibrary("CLibPQ", pkg: "libpq", apt: "libpq-dev"),
        cLibrary("CLibCrypto", pkg: "libcrypto", apt: "libssl-dev"),
        cLibrary("CMicroHTTPD", pkg: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        // libmeshoptimizer ships no pkg-config file; its header and library are on the default paths.
        .systemLibrary(name: "CMeshOptimizer", providers: [.apt(["libmeshoptimizer-dev"])]),
        cLibrary("CCairo", pkg: "cairo", apt: "libcairo2-dev"),

        // The job child launcher (fork, limits, namespaces, Landlock, seccomp, execve): our own C
        // code; libseccomp (libseccomp-dev) builds its filter.
        .target(name: "CSandbox", linkerSettings: [.linkedLibrary("seccomp")]),

        // The hub: pure Swift scene model.
        .target(name: "SceneModel", swiftSettings: strict),

        // Feature modules.
        .target(name: "USDParse", dependencies: ["SceneModel", "CZlib", "CLZ4"], swiftSettings: strict),
        .target(name: "Layering", dependencies: ["SceneModel", "JSONCore"], swiftSettings: strict),
        .target(name: "GLBWriter", dependencies: ["SceneModel", "JSONCore", "CMeshOptimizer"], swiftSettings: strict),
        // The software rasteriser is always optimised: unoptimised, it is ~30× slower, and the
        // debug test suite renders every sample.
        .target(
            name: "Thumbnailer", dependencies: ["SceneModel", "CLibPNG", "CLibJPEG", "CLibWebP"],
            swiftSettings: strict + [.unsafeFlags(["-O"])]),
        .target(name: "Manifest", dependencies: ["SceneModel", "JSONCore"], swiftSettings: strict),
        .target(name: "FloorPlan", dependencies: ["SceneModel", "CCairo"], swiftSettings: strict),

        // The runtime: no feature module below this line imports any of them.
        .target(name: "JSONCore", swiftSettings: strict),
        // What every command line shares and links no library for: the monotonic clock, exit
        // statuses, usage errors, the version, unbuffered output (re-exported by WorkerCore).
        .target(name: "CommandCore", dependencies: ["CProcessGuard"], swiftSettings: strict),
        // Our own C for what every command does to itself first (prctl is variadic, so not
        // callable from Swift): no library beyond libc.
        .target(name: "CProcessGuard"),
        // What the daemon and the job child share: the child's message lines, the previous
        // revision's pack, SHA-256/HMAC (libcrypto) and HTML escaping, and CommandCore.
        .target(name: "WorkerCore", dependencies: ["JSONCore", "CommandCore", "CLibCrypto"], swiftSettings: strict),
        .target(name: "ObjectStorage", dependencies: ["WorkerCore"], swiftSettings: strict),
        .target(name: "PGQueue", dependencies: ["JSONCore", "CLibPQ"], swiftSettings: strict),
        .target(name: "WorkerHTTP", dependencies: ["JSONCore", "CMicroHTTPD"], swiftSettings: strict),
        .target(
            name: "WorkerRuntime",
            dependencies: ["JSONCore", "WorkerCore", "ObjectStorage", "PGQueue", "WorkerHTTP", "CSandbox"],
            swiftSettings: strict),

        // Reading source files from disk: bounded whole-file reads and maps, and sibling assets
        // confined to one folder. Over USDParse's byte views and asset-provider protocol.
        .target(name: "SourceFiles", dependencies: ["USDParse"], swiftSettings: strict),

        // The composers. JobPipeline: the pipeline over the feature modules, the report and the
        // job child's command, linked without the daemon's modules (no libpq, libcurl or
        // libmicrohttpd), so `transcode-job` starts with few libraries to load.
        .target(
            name: "JobPipeline",
            dependencies: [
                "SceneModel", "USDParse", "Layering", "GLBWriter", "Thumbnailer", "Manifest", "FloorPlan",
                "JSONCore", "WorkerCore", "SourceFiles",
            ],
            swiftSettings: strict),
        // USDInspect: the `inspect` command, over the reader alone.
        .target(
            name: "USDInspect", dependencies: ["SceneModel", "USDParse", "JSONCore", "CommandCore", "SourceFiles"],
            swiftSettings: strict),
        // TranscodeWorker: the daemon's CLI over the runtime alone. `convert`, `inspect` and
        // `job-exec` execute `transcode-job` and `transcode-inspect` beside it.
        .target(
            name: "TranscodeWorker",
            dependencies: ["JSONCore", "WorkerCore", "ObjectStorage", "PGQueue", "WorkerHTTP", "WorkerRuntime"],
            swiftSettings: strict),
        .executableTarget(name: "transcode-worker", dependencies: ["TranscodeWorker"], swiftSettings: strict),
        .executableTarget(name: "transcode-job", dependencies: ["JobPipeline", "WorkerCore"], swiftSettings: strict),
        .executableTarget(name: "transcode-inspect", dependencies: ["USDInspect", "CommandCore"], swiftSettings: strict),

        // Fuzzing (scripts/fuzz): the targets' bodies, and one `fuzz-<target>` executable each. In
        // ordinary builds an executable replays files through its body; built with `-D FUZZING` and
        // `--sanitize=fuzzer` it is the libFuzzer binary. Tooling only: nothing else depends on it.
        .target(
            name: "FuzzHarness", dependencies: ["JobPipeline", "USDParse", "Layering", "Thumbnailer"],
            path: "Sources/Fuzz/FuzzHarness", swiftSettings: strict),
    ] + fuzzTargets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzHarness"], path: "Sources/Fuzz/fuzz-\(name)",
                          swiftSettings: strict)
    } + [

        // Tests. TestSupport: the paths, the binary locator, the loopback HTTP server and the
        // typed-error helper the test targets share.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "SceneModelTests", dependencies: ["TestSupport", "SceneModel"], swiftSettings: strict),
        .testTarget(name: "USDParseTests", dependencies: ["TestSupport", "USDParse", "SceneModel"], swiftSettings: strict),
        .testTarget(name: "LayeringTests", dependencies: ["TestSupport", "Layering", "SceneModel", "USDParse"], swiftSettings: strict),
        .testTarget(name: "GLBWriterTests", dependencies: ["TestSupport", "GLBWriter", "SceneModel", "JSONCore"], swiftSettings: strict),
        .testTarget(name: "ThumbnailerTests", dependencies: ["TestSupport", "Thumbnailer", "SceneModel", "USDParse"], swiftSettings: strict),
        .testTarget(
            name: "TranscodeWorkerTests",
            dependencies: ["TestSupport", "TranscodeWorker", "JobPipeline", "SourceFiles", "USDInspect", "WorkerCore", "WorkerRuntime", "PGQueue", "ObjectStorage", "CommandCore",
                           "WorkerHTTP", "JSONCore", "CSandbox",
                           "USDParse", "SceneModel", "Thumbnailer", "FloorPlan", "Layering", "GLBWriter", "Manifest"],
            exclude: ["Support/edge/serve.ts", "Support/edge/same_secret_test.ts", "Support/hostile"],
            swiftSettings: strict),
        .testTarget(name: "FloorPlanTests", dependencies: ["TestSupport", "FloorPlan", "SceneModel", "Layering", "USDParse"], swiftSettings: strict),
        .testTarget(name: "ManifestTests", dependencies: ["TestSupport", "Manifest", "SceneModel", "JSONCore"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "FuzzHarnessTests", dependencies: ["TestSupport", "FuzzHarness"], swiftSettings: strict),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"], swiftSettings: strict),
        .testTarget(name: "SourceFilesTests", dependencies: ["SourceFiles", "USDParse"], swiftSettings: strict),
        .testTarget(name: "WorkerCoreTests", dependencies: ["WorkerCore", "JSONCore"], swiftSettings: strict),
        .testTarget(name: "JobPipelineTests", dependencies: ["JobPipeline", "WorkerCore", "GLBWriter", "FloorPlan", "Thumbnailer"], swiftSettings: strict),
        .testTarget(name: "ObjectStorageTests", dependencies: ["TestSupport", "ObjectStorage"], swiftSettings: strict),
    ]
)
