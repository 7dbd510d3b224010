// swift-tools-version:6.0
import PackageDescription

// The layout is the architecture:
//   CCurl / CArchive      C headers (the libraries are loaded at run time), imported only by
//   XferCurl / XferArchive  Swift wrappers with no C types in their public API;
//   XferThreads           threads that name themselves, for the three modules that start them;
//   XferBatch             the core: Manifest -> Plan -> Execution (no C imports);
//   xferbatch             the executable: argument parsing only.
let package = Package(
    name: "xferbatch",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "xferbatch", targets: ["xferbatch"]),
        .library(name: "XferBatch", targets: ["XferBatch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // libcurl's and libarchive's headers only: each library is loaded at run time, not
        // linked (CurlLibrary.swift, LibArchive.swift), so that a command loads only what
        // it uses, and libcurl's many libraries load beside the manifest's reading.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CArchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        // Threads that name themselves (for top -H and perf): XferCurl, XferArchive, XferBatch.
        .target(name: "XferThreads"),
        .target(
            name: "XferCurl",
            dependencies: [
                "CCurl",
                "XferThreads",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "XferArchive",
            dependencies: ["CArchive", "XferThreads"]
        ),
        .target(
            name: "XferBatch",
            dependencies: [
                "XferCurl",
                "XferArchive",
                "XferThreads",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Test support: the fixture HTTP server (SwiftNIO), also runnable for the quickstart.
        .target(
            name: "XferFixtures",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                "XferCurl",
            ]
        ),
        .executableTarget(
            name: "xferbatch-fixture",
            dependencies: ["XferFixtures"]
        ),
        // Benchmarks (bench/): the engine fetching a URL list, compared with curl.
        .executableTarget(
            name: "xferbatch-engine-bench",
            dependencies: ["XferCurl"],
            path: "bench/EngineFetch"
        ),
        .executableTarget(
            name: "xferbatch",
            dependencies: [
                "XferBatch",
                "XferCurl",
                "XferArchive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "XferBatchTests",
            dependencies: ["XferBatch", "XferCurl", "XferFixtures", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "XferArchiveTests",
            dependencies: ["XferArchive", "XferFixtures"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "XferThreadsTests",
            dependencies: ["XferThreads"]
        ),
        .testTarget(
            name: "XferCurlTests",
            dependencies: ["XferCurl", "XferFixtures", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Runs the built `xferbatch` binary: exit codes, snapshots of `plan` and `--help`,
        // and the JSON Schemas checked by a validator we did not write.
        .testTarget(
            name: "CommandLineTests",
            dependencies: ["xferbatch", "XferBatch", "XferFixtures"],
            exclude: ["Snapshots"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
