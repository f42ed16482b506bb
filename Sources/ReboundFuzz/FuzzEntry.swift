#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if REBOUND_FUZZING
    /// The target `REBOUND_FUZZ_TARGET` names, chosen once.
    ///
    /// One executable with a target chosen at run time, not one per target: the fuzz build
    /// compiles every module with the fuzzer sanitizer once, and links once.
    let fuzzTarget: FuzzTarget = {
        let name = getenv("REBOUND_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FuzzCorpus.printError("REBOUND_FUZZ_TARGET must name a fuzz target: \(names)")
            exit(2)
        }
        return target
    }()

    /// libFuzzer's driver (compiler-rt's `FuzzerInterface.h`), which a program with a `main` of
    /// its own calls.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// Hands the process to libFuzzer. The executable has a `main` of its own even when fuzzing:
    /// SwiftPM links an executable's entry point as its module's `main`, so libFuzzer's would not
    /// be the one that runs.
    @main enum FuzzEntry {
        static func main() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv) { fuzzOneInput($0, $1) })
        }
    }

    /// libFuzzer's entry point: one input through the chosen target; a broken contract crashes.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        let violations = fuzzTarget.violations(input)
        if !violations.isEmpty {
            fatalError("\(fuzzTarget.rawValue): " + violations.joined(separator: "\n"))
        }
        return 0
    }
#else
    /// Without libFuzzer: replays files through a target, as `swift run rebound-fuzz TARGET PATH…`.
    ///
    /// Each path is a file or a directory of files (a corpus, or libFuzzer's crash artifacts);
    /// exits with status 1 if any input broke the target's contract, 64 for bad arguments.
    @main enum FuzzEntry {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
                FuzzCorpus.printError("usage: rebound-fuzz <\(names)> [file or directory]...")
                exit(64)
            }
            var failed = false
            var count = 0
            for path in arguments.dropFirst() {
                for file in FuzzCorpus.files(at: path) {
                    count += 1
                    guard let input = FuzzCorpus.contents(of: file) else {
                        FuzzCorpus.printError("\(file): cannot be read")
                        failed = true
                        continue
                    }
                    for violation in target.violations(input) {
                        print("\(file): \(violation)")
                        failed = true
                    }
                }
            }
            print("\(target.rawValue): \(count) inputs, \(failed ? "failed" : "all kept the contract")")
            exit(failed ? 1 : 0)
        }
    }
#endif
