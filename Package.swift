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

        // MARK: Modules
        .target(name: "Upgrader", dependencies: ["CSQLite"], path: "Modules/Upgrader"),

        // MARK: Tools
        .executableTarget(name: "cblite-bench",
                          dependencies: [
                              "CSQLite", "CRocksDB", "Upgrader",
                              .product(name: "ArgumentParser", package: "swift-argument-parser"),
                          ],
                          path: "Tools/cblite-bench"),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: [], path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"],
                    path: "Tests/TestSupportTests"),
        .testTarget(name: "UpgraderTests", dependencies: ["Upgrader", "TestSupport", "CSQLite"],
                    path: "Tests/UpgraderTests"),
    ],
    swiftLanguageModes: [.v6]
)
