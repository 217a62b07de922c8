// swift-tools-version:6.1
import PackageDescription

/// What each module's tests use of NIO and swift-log, beside the module, MicroTesting and MicroTestSupport.
let moduleTestDependencies: [Target.Dependency] = [
    .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "Micro",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Micro", targets: ["Micro"]),
        // The core and authentication without the account pages (and without libqrencode).
        .library(name: "MicroCore", targets: ["MicroCore"]),
        .library(name: "MicroAuth", targets: ["MicroAuth"]),
        .library(name: "MicroAccounts", targets: ["MicroAccounts"]),
        // The account pages' second factor (libqrencode) and passkeys (libfido2), each its own
        // library, so that an app without one links no C library for it.
        .library(name: "MicroTwoFactor", targets: ["MicroTwoFactor"]),
        .library(name: "MicroPasskeys", targets: ["MicroPasskeys"]),
        .library(name: "MicroTesting", targets: ["MicroTesting"]),
        .library(name: "MicroPostgres", targets: ["MicroPostgres"]),
        // Single sign-on with OpenID Connect: its own library, so that apps without it link
        // neither jwt-kit nor async-http-client.
        .library(name: "MicroOpenIdConnect", targets: ["MicroOpenIdConnect"]),
        // Micro's commands for a tool's operator (add-user, reset-two-factor, ...): its own
        // library, so that apps without them do not link swift-argument-parser.
        .library(name: "MicroCommands", targets: ["MicroCommands"]),
        .executable(name: "SampleApp", targets: ["SampleApp"]),
    ],
    // What a tool that depends on Micro resolves and builds: PostgreSQL (several instances) and
    // single sign-on each bring packages a tool without them never uses. Both are on by default;
    // a tool names the ones it wants (`traits: ["Postgres"]`, or `[]` for neither), and the
    // others' packages are not fetched. Micro's own SampleApp and tests use both.
    traits: [
        .trait(name: "Postgres", description: "MicroPostgres: PostgreSQL through postgres-nio, postgres-kit and swift-nio-ssl."),
        .trait(name: "OpenIdConnect", description: "MicroOpenIdConnect: single sign-on through jwt-kit and async-http-client."),
        .default(enabledTraits: ["Postgres", "OpenIdConnect"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The data layer: one SQL builder (parameters always bound) over SQLite and PostgreSQL.
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.25.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Only the tests use it: they export Micro's metrics as the article "Metrics" shows.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // ID tokens and key sets (single sign-on); 5.8.0 exactly, the version reviewed for
        // its gaps (no iss or nonce check, a default key for an unknown kid).
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        // Discovery, key sets and the token endpoint (single sign-on).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The documentation, for `swift package generate-documentation`; CI builds it with the
        // toolchain's docc alone (scripts/build-docs, CONTRIBUTING.md).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CCrypt", pkgConfig: "libcrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CYaml", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CQrEncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // Yubico's libfido2: reads a passkey's public key (CBOR, COSE) and checks its signatures.
        .systemLibrary(name: "CFido2", pkgConfig: "libfido2", providers: [.apt(["libfido2-dev"])]),
        // glibc's malloc_trim, which Swift's Glibc module does not declare.
        .systemLibrary(name: "CMalloc"),
        // The core: server, HTTP, routing, the app, sessions, security headers, views, static
        // files, the data layer. It knows none of its plugins.
        .target(
            name: "MicroCore",
            dependencies: [
                "CMalloc",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                // HTTPS without a proxy in front (Settings.tls).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
            ]
        ),
        // Authentication: users and their stores, passwords, the sign-in flow and its hooks.
        .target(
            name: "MicroAuth",
            dependencies: [
                "MicroCore", "CCrypt", "CYaml",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
            ],
            // The ICU inside Foundation on Linux: UTS #39 confusables and bidi classes for usernames.
            linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]
        ),
        // The account pages, the users page, the audit, the app's events and API tokens, with
        // the features other modules add to them (AccountFeature).
        .target(
            name: "MicroAccounts",
            dependencies: [
                "MicroCore", "MicroAuth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        // Two-factor sign-in (TOTP, recovery codes), a feature of the account pages: the only
        // module that needs libqrencode.
        .target(
            name: "MicroTwoFactor",
            dependencies: [
                "MicroCore", "MicroAuth", "MicroAccounts", "CQrEncode",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        // Passkeys (WebAuthn), a feature of the account pages: the only module that needs
        // libfido2. A passkey also answers the second factor's step, and a passkey that did not
        // verify the person leads to it.
        .target(
            name: "MicroPasskeys",
            dependencies: [
                "MicroCore", "MicroAuth", "MicroAccounts", "MicroTwoFactor", "CFido2",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        // What `import Micro` brings: the modules above, the account pages with both of their
        // features, for apps, the README and the examples.
        .target(name: "Micro", dependencies: ["MicroCore", "MicroAuth", "MicroAccounts", "MicroTwoFactor", "MicroPasskeys"]),
        // What a tool's own tests use: the test client, its sign-in helpers, throwaway databases.
        .target(
            name: "MicroTesting",
            dependencies: [
                "MicroCore", "MicroAuth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "MicroPostgres",
            dependencies: [
                "MicroCore", "MicroAuth",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "PostgresKit", package: "postgres-kit", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "MicroOpenIdConnect",
            dependencies: [
                "MicroCore", "MicroAuth", "MicroAccounts",
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["OpenIdConnect"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["OpenIdConnect"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "MicroCommands",
            dependencies: [
                "Micro", "MicroCore", "MicroPostgres",
                .target(name: "MicroOpenIdConnect", condition: .when(traits: ["OpenIdConnect"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "SampleApp",
            dependencies: [
                "Micro", "MicroPostgres", "MicroOpenIdConnect", "MicroCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // An app of the core and authentication alone: scripts/check-without-accounts shows that
        // it builds and links without the account pages and libqrencode.
        .executableTarget(name: "SignInOnlyApp", dependencies: ["MicroCore", "MicroAuth", "MicroPostgres"], path: "Tests/SignInOnlyApp"),
        // An app of the account pages with two-factor sign-in and no passkeys: the same script
        // shows that it links neither MicroPasskeys nor libfido2.
        .executableTarget(
            name: "NoPasskeysApp", dependencies: ["MicroCore", "MicroAuth", "MicroAccounts", "MicroTwoFactor"], path: "Tests/NoPasskeysApp"),
        // A tool of one's own on Micro's command line (CommandLineTool): SampleAppTests run it.
        .executableTarget(
            name: "LabTool", dependencies: ["Micro", "MicroCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/LabTool"),
        // The example tool, a package of its own for a person to copy (Examples/NotesTool), is
        // also built here, as swift-nio builds its examples: its tests then run in this package's
        // builds, the sanitizers' too, instead of in a fourth whole build of the dependencies.
        // scripts/check-outside-plugins type-checks it as its own package, without package access.
        .target(name: "NotesToolApp", dependencies: ["Micro", "MicroPostgres"], path: "Examples/NotesTool/Sources/NotesToolApp"),
        .executableTarget(
            name: "NotesTool", dependencies: ["NotesToolApp", "Micro", "MicroCommands"], path: "Examples/NotesTool/Sources/NotesTool"),
        // The helpers Micro's own tests share (test apps, temporary folders, a raw HTTP client,
        // another program's SQLite connection): a target of the package and no product, so that
        // a tool that depends on Micro neither sees nor builds them.
        .target(
            name: "MicroTestSupport",
            dependencies: [
                "MicroCore", "MicroAuth", "MicroTesting",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // RawHttpClient over TLS, trusting only a test's own certificate.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // SqliteWriter: a SQLiteNIO connection of its own, as another program's.
                .product(name: "SQLiteKit", package: "sqlite-kit"),
            ],
            path: "Tests/MicroTestSupport"
        ),
        // Each module's tests, beside it; the helpers they share are MicroTestSupport's.
        .testTarget(
            name: "MicroCoreTests",
            dependencies: [
                "MicroCore", "MicroTesting", "MicroTestSupport",
            ] + moduleTestDependencies + [
                // Lambdas and custom renderables in the escaping tests.
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                // The fake mail server's STARTTLS and implicit TLS (SmtpMailerTests).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "MicroAuthTests",
            dependencies: [
                "MicroCore", "MicroAuth", "MicroTesting", "MicroTestSupport",
            ] + moduleTestDependencies + [
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        .testTarget(
            name: "MicroAccountsTests",
            dependencies: [
                "MicroCore", "MicroAuth", "MicroAccounts", "MicroTwoFactor", "MicroPasskeys", "Micro", "MicroTesting", "MicroTestSupport",
            ] + moduleTestDependencies + [
                .product(name: "Crypto", package: "swift-crypto"),
                // The RS256 passkeys of the crafted ceremonies.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // Reading what the two-factor tables hold.
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        .testTarget(
            name: "MicroOpenIdConnectTests",
            dependencies: [
                "Micro", "MicroCore", "MicroAuth", "MicroAccounts", "MicroTwoFactor", "MicroTesting", "MicroTestSupport", "MicroOpenIdConnect",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SampleAppTests",
            dependencies: ["SampleApp", "LabTool", "MicroTesting", "MicroTestSupport", "MicroPostgres", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "NotesToolTests",
            dependencies: ["NotesToolApp", "NotesTool", "Micro", "MicroPostgres", "MicroTesting"],
            path: "Examples/NotesTool/Tests/NotesToolTests"
        ),
        .testTarget(
            name: "MicroPostgresTests",
            dependencies: [
                "Micro", "MicroCore", "MicroAuth", "MicroAccounts", "MicroTwoFactor", "MicroPasskeys", "MicroTesting", "MicroTestSupport", "MicroPostgres", "MicroOpenIdConnect",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets (fuzz/README.md), only with MICRO_FUZZ=1: in the address sanitizer's
// build (.ci/flags), which adds the coverage they need, so that fuzzing costs no build of its
// own; a plain `swift build` never sees them.
if Context.environment["MICRO_FUZZ"] == "1" {
    // libFuzzer supplies `main` (the fuzzer runtime, linked by -sanitize=fuzzer); each target
    // exports `LLVMFuzzerTestOneInput`, and the entry point a debug build asks for (FuzzerMain.swift).
    // lld: gold warns about the sanitizer's runtime on every link.
    let asLibrary: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]
    let withLibFuzzer: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
    package.targets.append(.target(name: "CLibFuzzer", path: "fuzz/Sources/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "fuzz/Sources/FuzzSupport"))
    for name in [
        "FuzzFormDecoding", "FuzzMultipart", "FuzzCookies", "FuzzSessionCookie", "FuzzRoutePattern", "FuzzRouter",
        "FuzzYamlUsers", "FuzzHtmlEscape",
    ] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["FuzzSupport", "Micro"], path: "fuzz/Sources/\(name)",
                swiftSettings: asLibrary, linkerSettings: withLibFuzzer))
    }
}

// The sanitizers' builds (.ci/flags) hold the framework alone with MICRO_SCOPE=framework: the
// modules with the code the compiler cannot check, unsafe pointers, C libraries and sendability
// taken on trust (MicroCore, MicroAuth, MicroAccounts, MicroTwoFactor, MicroPasskeys), their tests with
// the helpers they use (MicroTesting, MicroTestSupport) and the fuzz targets, without
// the plugins and the apps (the app without accounts uses PostgreSQL), so that the packages only
// those use are not built.
// scripts/check-sanitizer-scope fails CI when code of that kind appears in a module left out here.
if Context.environment["MICRO_SCOPE"] == "framework" {
    let left: Set<String> = [
        "MicroPostgres", "MicroOpenIdConnect", "MicroCommands", "SampleApp", "LabTool", "SignInOnlyApp", "NoPasskeysApp", "NotesToolApp", "NotesTool",
        "MicroOpenIdConnectTests", "SampleAppTests", "NotesToolTests", "MicroPostgresTests",
    ]
    package.targets.removeAll { left.contains($0.name) }
    package.products.removeAll { left.contains($0.name) }
    // The packages only those use stay declared (SwiftPM warns that they are unused): the package
    // resolves to the same versions in every build folder, with one Package.resolved.
}
