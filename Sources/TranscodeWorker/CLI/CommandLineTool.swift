/// Entry point of the `transcode-worker` command: dispatches sub-commands and returns an exit status.
public enum CommandLineTool {
    public static func main(_ args: [String]) -> Int32 {
        print("transcode-worker: no commands yet")
        return 0
    }
}
