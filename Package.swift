// swift-tools-version: 6.1
// Couchbase Lite 2.x for Swift on Linux. Module map and layering: docs/architecture.md.
import PackageDescription

let package = Package(
    name: "CouchbaseLiteSwift",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cblite-bench", targets: ["cblite-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // MARK: System libraries (Debian -dev packages, installed by `make deps`)
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite",
                       pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CRocksDB", path: "Modules/CRocksDB",
                       pkgConfig: "rocksdb", providers: [.apt(["librocksdb-dev"])]),

        // MARK: Storage
        .target(name: "LiteStorage", path: "Modules/LiteStorage"),
        .target(name: "SQLiteStorage", dependencies: ["LiteStorage", "CSQLite"],
                path: "Modules/SQLiteStorage"),
        .target(name: "RocksDBStorage", dependencies: ["LiteStorage", "CRocksDB"],
                path: "Modules/RocksDBStorage"),

        // MARK: Tools
        .executableTarget(name: "cblite-bench",
                          dependencies: [
                              "CSQLite", "CRocksDB", "LiteStorage", "SQLiteStorage", "RocksDBStorage",
                              .product(name: "ArgumentParser", package: "swift-argument-parser"),
                          ],
                          path: "Tools/cblite-bench"),

        .executableTarget(name: "storage-crash-writer",
                          dependencies: ["LiteStorage", "SQLiteStorage", "RocksDBStorage"],
                          path: "Tools/storage-crash-writer"),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["LiteStorage", "SQLiteStorage", "RocksDBStorage"],
                path: "Tests/TestSupport"),
        .testTarget(name: "LiteStorageTests",
                    dependencies: ["TestSupport", "LiteStorage", "SQLiteStorage", "RocksDBStorage"],
                    path: "Tests/LiteStorageTests"),
        .testTarget(name: "SQLiteStorageTests",
                    dependencies: ["TestSupport", "LiteStorage", "SQLiteStorage"],
                    path: "Tests/SQLiteStorageTests"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"],
                    path: "Tests/TestSupportTests"),
    ],
    swiftLanguageModes: [.v6]
)
