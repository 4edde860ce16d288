// swift-tools-version: 6.1
// Couchbase Lite 2.x for Swift on Linux. Module map and layering: docs/architecture.md.
import PackageDescription

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
// AES-CBC for Couchbase Lite's encrypted blob format (BlobStore), PBKDF2 for password keys.
let cryptoExtras = Target.Dependency.product(name: "CryptoExtras", package: "swift-crypto")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
// The WebSocket transport (BLIPWebSocket) is written on SwiftNIO directly: see docs/decisions.md.
let webSocketStack: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "X509", package: "swift-certificates"),
    .product(name: "SwiftASN1", package: "swift-asn1"), crypto,
]

/// Release builds of the command-line tools are linked as position-dependent executables: a
/// PIE start applies about 116,000 relocations to the statically linked Swift runtime and
/// Foundation, a fifth of `cblite info`'s time (decision Tools-14). Debug and sanitizer builds
/// stay PIE (ThreadSanitizer requires it).
let toolLinkerSettings: [LinkerSetting] = [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(configuration: .release))]

let package = Package(
    name: "CouchbaseLiteSwift",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CouchbaseLiteSwift", targets: ["CouchbaseLiteSwift"]),
        .executable(name: "cblite-bench", targets: ["cblite-bench"]),
        .executable(name: "fleece", targets: ["fleece"]),
        .executable(name: "cblite", targets: ["cblite"]),
        .executable(name: "cblite-replicate", targets: ["cblite-replicate"]),
        .executable(name: "cblite-convert", targets: ["cblite-convert"]),
        // Encrypted RocksDB databases: a C++ shim loaded at run time, never linked (see its target).
        .library(name: "CRocksDBEncryption", type: .dynamic, targets: ["CRocksDBEncryption"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // Tests only: property-based checks (generators, seeds, shrinking) on Swift Testing.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // Only for `make docs` (`swift package generate-documentation`); nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: System libraries (Debian -dev packages, installed by `make deps`)
        // SQLite and the Snowball stemmers link statically (`link ":lib….a"` in their module maps):
        // resolving their symbols at every process start cost the tools half a millisecond
        // (decision Tools-16).
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // RocksDB's C API, loaded with dlopen on first use rather than linked (decision Tools-12).
        .target(name: "CRocksDB", path: "Modules/CRocksDB", linkerSettings: [.linkedLibrary("dl")]),
        // RocksDB's encrypted Env with an AES-256-CTR provider on OpenSSL (libssl-dev), which the C
        // API cannot reach. Only its own dynamic library product contains it; CRocksDB loads that
        // with dlopen when a database is opened with a key, so nothing links librocksdb or
        // libcrypto (docs/decisions.md, Storage-27). No target may depend on it.
        .target(name: "CRocksDBEncryption", path: "Modules/CRocksDBEncryption",
                linkerSettings: [.linkedLibrary("rocksdb"), .linkedLibrary("crypto")]),
        .systemLibrary(name: "CStemmer", path: "Modules/CStemmer", providers: [.apt(["libstemmer-dev"])]),
        .systemLibrary(name: "CZlib", path: "Modules/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // MARK: Support (a lock the thread sanitizer understands)
        .target(name: "LiteSupport", path: "Modules/LiteSupport"),

        // MARK: Data format
        .target(name: "Fleece", dependencies: ["LiteSupport"], path: "Modules/Fleece"),

        // MARK: Storage
        .target(name: "LiteStorage", dependencies: ["LiteSupport"], path: "Modules/LiteStorage"),
        // Crypto: the encrypting VFS's AES-256-GCM (encryption at rest, docs/security.md).
        .target(name: "SQLiteStorage", dependencies: ["LiteSupport", "LiteStorage", "CSQLite", crypto],
                path: "Modules/SQLiteStorage"),
        .target(name: "RocksDBStorage", dependencies: ["LiteSupport", "LiteStorage", "CRocksDB"],
                path: "Modules/RocksDBStorage"),
        .target(name: "BlobStore", dependencies: ["LiteSupport", crypto, cryptoExtras], path: "Modules/BlobStore"),

        // MARK: Database core
        .target(name: "LiteDatabase", dependencies: ["LiteSupport", "Fleece", "LiteStorage", "BlobStore", crypto, cryptoExtras],
                path: "Modules/LiteDatabase"),
        // MARK: Full-text search (tokenizer, Snowball stemming, match syntax, inverted index)
        .target(name: "LiteText", dependencies: ["LiteSupport", "CStemmer", "Fleece", "LiteStorage", "LiteDatabase"],
                path: "Modules/LiteText"),

        // MARK: Replication (BLIP framing and connection; the protocol on top of it)
        .target(name: "BLIP", dependencies: ["LiteSupport", "CZlib"], path: "Modules/BLIP"),
        .target(name: "BLIPWebSocket", dependencies: ["BLIP", "LiteSupport"] + webSocketStack,
                path: "Modules/BLIPWebSocket"),
        .target(name: "LiteReplicator",
                dependencies: ["LiteSupport", "BLIP", "Fleece", "LiteStorage", "LiteDatabase", "BlobStore", crypto],
                path: "Modules/LiteReplicator"),

        // MARK: Queries (JSON query syntax, N1QL evaluation, full-scan executor)
        .target(name: "LiteQuery", dependencies: ["Fleece", "LiteStorage", "LiteDatabase", "LiteText"],
                path: "Modules/LiteQuery"),
        .target(name: "Upgrader", dependencies: ["CSQLite", "Fleece", "LiteStorage", "SQLiteStorage", "BlobStore", "LiteDatabase",
                                            "LiteSupport"],
                path: "Modules/Upgrader"),
        .target(name: "DatabaseConversion", dependencies: ["LiteSupport", "LiteStorage", "LiteDatabase", "BlobStore"],
                path: "Modules/DatabaseConversion"),
        .target(name: "DatabaseTools",
                dependencies: ["LiteDatabase", "LiteQuery", "LiteText", "Fleece", "LiteStorage", "SQLiteStorage",
                               "RocksDBStorage", "BlobStore", "Upgrader", "LiteSupport", "DatabaseConversion"],
                path: "Modules/DatabaseTools"),

        // MARK: Public API
        .target(name: "CouchbaseLiteSwift",
                dependencies: ["LiteSupport", "LiteDatabase", "LiteQuery", "LiteText", "Fleece", "LiteStorage", "SQLiteStorage",
                               "RocksDBStorage", "BlobStore", "Upgrader", "DatabaseConversion", "BLIP", "BLIPWebSocket", "LiteReplicator",
                               logging],
                path: "Modules/CouchbaseLiteSwift"),

        // MARK: Tools
        .executableTarget(name: "getting-started", dependencies: ["CouchbaseLiteSwift"],
                          path: "Tools/getting-started"),
        .executableTarget(name: "fleece", dependencies: ["Fleece", argumentParser], path: "Tools/fleece"),
        .target(name: "CommandLineSupport", dependencies: ["LiteSupport", "LiteDatabase", argumentParser],
                path: "Tools/CommandLineSupport"),
        // cblite links no network stack: its replication commands hand over to cblite-replicate
        // (docs/decisions.md, Tools-17).
        .executableTarget(name: "cblite", dependencies: ["CommandLineSupport", "LiteSupport",
                                                        "DatabaseTools", "DatabaseConversion", "LiteDatabase", "LiteQuery",
                                                        "LiteText", "Fleece", "BlobStore",
                                                        "LiteStorage", argumentParser],
                          path: "Tools/cblite", linkerSettings: toolLinkerSettings),
        .executableTarget(name: "cblite-replicate", dependencies: ["CommandLineSupport", "CouchbaseLiteSwift", "LiteSupport",
                                                                  argumentParser],
                          path: "Tools/cblite-replicate", linkerSettings: toolLinkerSettings),
        .executableTarget(name: "storage-crash-writer",
                          dependencies: ["LiteSupport", "LiteStorage", "SQLiteStorage", "RocksDBStorage"],
                          path: "Tools/storage-crash-writer"),
        // The database crash tests' and the soak test's child process (TestSupport's workload).
        .executableTarget(name: "database-crash-writer", dependencies: ["CouchbaseLiteSwift", "TestSupport"],
                          path: "Tools/database-crash-writer"),
        .executableTarget(name: "cblite-convert", dependencies: ["CommandLineSupport", "DatabaseTools", "LiteSupport", argumentParser],
                          path: "Tools/cblite-convert", linkerSettings: toolLinkerSettings),
        .executableTarget(name: "cblite-bench",
                          dependencies: ["CouchbaseLiteSwift", "CSQLite", "CRocksDB", "Fleece", "BlobStore", "Upgrader",
                                         "LiteStorage", "LiteDatabase", "LiteText", "DatabaseTools",
                                         "DatabaseConversion", "SQLiteStorage", "RocksDBStorage", crypto, argumentParser],
                          path: "Tools/cblite-bench"),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["LiteSupport", "LiteStorage", "SQLiteStorage", "RocksDBStorage"],
                path: "Tests/TestSupport"),
        .testTarget(name: "LiteStorageTests",
                    dependencies: ["TestSupport", "LiteSupport", "LiteStorage", "SQLiteStorage", "RocksDBStorage", "CRocksDB",
                                   .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/LiteStorageTests"),
        .testTarget(name: "SQLiteStorageTests",
                    dependencies: ["TestSupport", "LiteStorage", "SQLiteStorage"],
                    path: "Tests/SQLiteStorageTests"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport", "LiteSupport"], path: "Tests/TestSupportTests"),
        .testTarget(name: "LiteTextTests", dependencies: ["LiteText", "LiteDatabase", "LiteStorage", "Fleece", "TestSupport",
                                                      .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/LiteTextTests"),
        .testTarget(name: "BLIPTests", dependencies: ["BLIP", "LiteSupport", "TestSupport"], path: "Tests/BLIPTests"),
        .testTarget(name: "BLIPWebSocketTests",
                    dependencies: ["BLIPWebSocket", "BLIP", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                                   .product(name: "NIOPosix", package: "swift-nio")],
                    path: "Tests/BLIPWebSocketTests"),
        .testTarget(name: "LiteReplicatorTests",
                    dependencies: ["LiteReplicator", "BLIP", "LiteDatabase", "LiteStorage", "LiteSupport", "Fleece",
                                   "DatabaseTools", "TestSupport",
                                   .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/LiteReplicatorTests"),
        .testTarget(name: "FleeceTests", dependencies: ["Fleece", "TestSupport",
                                                    .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/FleeceTests"),
        .testTarget(name: "BlobStoreTests", dependencies: ["BlobStore", "CouchbaseLiteSwift", "LiteSupport", "TestSupport", crypto],
                    path: "Tests/BlobStoreTests"),
        .testTarget(name: "LiteSupportTests", dependencies: ["LiteSupport",
                                                         .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/LiteSupportTests"),
        .testTarget(name: "LiteDatabaseTests", dependencies: ["LiteSupport", "LiteDatabase", "TestSupport",
                                                          .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/LiteDatabaseTests"),
        // CZlib: the hostile-peer tests deflate their own frames (RawWebSocketPeer.swift).
        .testTarget(name: "CouchbaseLiteSwiftTests", dependencies: ["LiteSupport", "CouchbaseLiteSwift", "LiteDatabase", "LiteQuery", "Fleece", "TestSupport", "CSQLite", "CZlib", crypto,
                                                                .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/CouchbaseLiteSwiftTests"),
        .testTarget(name: "DatabaseToolsTests",
                    dependencies: ["DatabaseTools", "DatabaseConversion", "TestSupport", "LiteSupport", "LiteDatabase",
                                   "LiteStorage", "SQLiteStorage",
                                   "RocksDBStorage", "BlobStore", "Fleece", "CouchbaseLiteSwift", "CommandLineSupport",
                                   .product(name: "PropertyBased", package: "swift-property-based")],
                    path: "Tests/DatabaseToolsTests"),
        // The Couchbase Lite 2.0 guide's code, as the guide writes it, on the travel data set; the
        // DocC articles' code blocks are these snippets (GuideArticleTests checks it).
        .testTarget(name: "GuideExamplesTests", dependencies: ["CouchbaseLiteSwift", "TestSupport", logging],
                    path: "Tests/GuideExamplesTests"),
        .testTarget(name: "UpgraderTests", dependencies: ["LiteSupport", "Upgrader", "TestSupport", "CSQLite", "CouchbaseLiteSwift",
                                                         "LiteDatabase", "LiteStorage", "BlobStore", "Fleece"],
                    path: "Tests/UpgraderTests"),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
