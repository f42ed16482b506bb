import ReboundCLI

/// The `rebound` executable. The tool itself is the `ReboundCLI` module, a library, so that the
/// fuzz target `cli-arguments` can parse and validate its command lines in process.
@main
enum ReboundTool {
    static func main() async {
        await ReboundCommandLine.main()
    }
}
