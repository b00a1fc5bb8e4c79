// What every command line shares (the monotonic clock, exit statuses, usage errors, the version,
// unbuffered output) lives in CommandCore, which links no library; every user of WorkerCore sees it
// as part of WorkerCore.
@_exported import CommandCore
