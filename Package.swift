// swift-tools-version: 6.1
// Couchbase Lite 2.x for Swift on Linux. Module map and layering: docs/architecture.md.
import PackageDescription

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")

let package = Package(
    name: "CouchbaseLiteSwift",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cblite-bench", targets: ["cblite-bench"]),
        .executable(name: "fleece", targets: ["fleece"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // MARK: System libraries (Debian -dev packages, installed by `make deps`)
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite",
                       pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CRocksDB", path: "Modules/CRocksDB",
                       pkgConfig: "rocksdb", providers: [.apt(["librocksdb-dev"])]),

        // MARK: Data format
        .target(name: "Fleece", dependencies: [], path: "Modules/Fleece"),

        // MARK: Storage
        .target(name: "LiteStorage", path: "Modules/LiteStorage"),
        .target(name: "SQLiteStorage", dependencies: ["LiteStorage", "CSQLite"],
                path: "Modules/SQLiteStorage"),
        .target(name: "BlobStore", dependencies: [crypto], path: "Modules/BlobStore"),

        // MARK: Database core
        .target(name: "LiteDatabase", dependencies: ["Fleece", "LiteStorage", "BlobStore", crypto],
                path: "Modules/LiteDatabase"),

        // MARK: Tools
        .executableTarget(name: "fleece", dependencies: ["Fleece", argumentParser], path: "Tools/fleece"),
        .executableTarget(name: "cblite-bench",
                          dependencies: ["CSQLite", "CRocksDB", "Fleece", "BlobStore", crypto, argumentParser],
                          path: "Tools/cblite-bench"),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: [], path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"], path: "Tests/TestSupportTests"),
        .testTarget(name: "FleeceTests", dependencies: ["Fleece", "TestSupport"], path: "Tests/FleeceTests"),
        .testTarget(name: "BlobStoreTests", dependencies: ["BlobStore", "TestSupport", crypto],
                    path: "Tests/BlobStoreTests"),
        .testTarget(name: "LiteDatabaseTests", dependencies: ["LiteDatabase", "TestSupport"],
                    path: "Tests/LiteDatabaseTests"),
    ],
    swiftLanguageModes: [.v6]
)
