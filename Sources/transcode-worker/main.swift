import TranscodeWorker

#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.executableMain(Array(CommandLine.arguments.dropFirst())))
