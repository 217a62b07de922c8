// swift-tools-version:6.0
// The libFuzzer targets: a separate package, so the main package's `swift test` never builds
// them. Run them with `fuzz/run.sh [SECONDS]` from the repository's root (see fuzz/README.md),
// which builds with `swift build -c release --sanitize=fuzzer --sanitize=address
// -Xswiftc -sanitize=fuzzer,address` (swiftc keeps only the last `-sanitize=` it is given).
import PackageDescription

// SwiftPM names a path dependency after its folder: the checkout's folder, whatever it is.
let micro = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "micro").lowercased()

// libFuzzer supplies `main`; each target only exports `LLVMFuzzerTestOneInput`.
let libraryMode: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]
// lld: gold warns about the address sanitizer's runtime on every link.
let linkWithLld: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"])]

func fuzzer(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", .product(name: "Micro", package: micro)],
        swiftSettings: libraryMode,
        linkerSettings: linkWithLld
    )
}

let package = Package(
    name: "MicroFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "..")
    ],
    targets: [
        .target(name: "FuzzSupport"),
        fuzzer("FuzzFormDecoding"),
        fuzzer("FuzzMultipart"),
        fuzzer("FuzzCookies"),
        fuzzer("FuzzSessionCookie"),
        fuzzer("FuzzRoutePattern"),
        fuzzer("FuzzRouter"),
        fuzzer("FuzzYamlUsers"),
        fuzzer("FuzzHtmlEscape"),
    ],
    swiftLanguageModes: [.v6]
)
