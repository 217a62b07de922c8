// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "NotesTool",
    platforms: [.macOS(.v14)],
    // PostgreSQL when MICRO_DATABASE_URL is set; no single sign-on, so its packages are not fetched.
    dependencies: [.package(name: "Micro", path: "../..", traits: ["Postgres"])],
    targets: [
        .target(
            name: "NotesToolApp",
            dependencies: [.product(name: "Micro", package: "Micro"), .product(name: "MicroPostgres", package: "Micro")]
        ),
        .executableTarget(
            name: "NotesTool",
            dependencies: ["NotesToolApp", .product(name: "Micro", package: "Micro"), .product(name: "MicroCommands", package: "Micro")]
        ),
        .testTarget(
            name: "NotesToolTests",
            // NotesTool too: a test runs the binary as a person would.
            dependencies: [
                "NotesToolApp", "NotesTool", .product(name: "Micro", package: "Micro"), .product(name: "MicroPostgres", package: "Micro"),
                .product(name: "MicroTesting", package: "Micro"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
