import TranscodeWorker

#if canImport(Glibc)
import Glibc
#endif

exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
