// swift-tools-version:6.0
// The benchmark: a separate package, so the main package's `swift test` never builds it.
// Run it with `bench/run.sh` from the repository's root.
import PackageDescription

// SwiftPM names a path dependency after its folder: the checkout's folder, whatever it is.
let micro = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "micro").lowercased()

let package = Package(
    name: "MicroBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "RawNioServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "BenchRoutes", dependencies: [.product(name: "Micro", package: micro)]),
        .executableTarget(
            name: "InProcessBench",
            dependencies: [
                "BenchRoutes", .product(name: "Micro", package: micro),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        .executableTarget(
            name: "SignInBench",
            dependencies: [.product(name: "Micro", package: micro), .product(name: "NIOCore", package: "swift-nio")]
        ),
        .executableTarget(
            name: "RowReadBench",
            dependencies: [
                "CSQLiteRaw", .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "RouteRowBench",
            dependencies: [.product(name: "Micro", package: micro), .product(name: "SQLiteKit", package: "sqlite-kit")]
        ),
        .executableTarget(
            name: "TablePageBench",
            dependencies: [.product(name: "Micro", package: micro), .product(name: "MicroTesting", package: micro)]
        ),
        // libsqlite3, for the hand-written driver RowReadBench compares sql-kit with.
        .systemLibrary(name: "CSQLiteRaw", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "MicroBench",
            dependencies: [
                "BenchRoutes", .product(name: "Micro", package: micro), .product(name: "MicroPostgres", package: micro),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
