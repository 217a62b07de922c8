// swift-tools-version:6.0
// The peer in the side-by-side benchmark: the Micro bench app's GET /hello and GET /page, written
// with Hummingbird 2, hummingbird-auth's sessions and swift-mustache. A separate package, so
// neither the main package's `swift test` nor bench/ builds it. Run it with `bench/peers/run.sh`
// from the repository's root; see bench/peers/README.md.
import PackageDescription

let package = Package(
    name: "PeerBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", exact: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdBench",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
