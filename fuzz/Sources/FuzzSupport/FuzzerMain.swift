import CLibFuzzer

/// A fuzz target's entry point in a debug build of the package's tests: it hands the process to
/// libFuzzer's driver, as libFuzzer's own `main` does.
///
/// Such a build renames each executable's entry point to `<Target>_main` and points `main` at
/// it, so that tests can link executables. A fuzz target has no entry point of its own
/// (libFuzzer's `main` drives it), so each exports that name (`@_cdecl("<Target>_main")`) and
/// calls this.
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    micro_fuzzer_main(argc, argv)
}
