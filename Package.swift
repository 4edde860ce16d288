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
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // MARK: System libraries (Debian -dev packages, installed by `make deps`)
        .systemLibrary(name: "CSQLite", path: "Modules/CSQLite",
                       pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CRocksDB", path: "Modules/CRocksDB",
                       pkgConfig: "rocksdb", providers: [.apt(["librocksdb-dev"])]),

        // MARK: Modules
        .target(name: "BlobStore",
                dependencies: [.product(name: "Crypto", package: "swift-crypto")],
                path: "Modules/BlobStore"),

        // MARK: Tools
        .executableTarget(name: "cblite-bench",
                          dependencies: [
                              "CSQLite", "CRocksDB", "BlobStore",
                              .product(name: "Crypto", package: "swift-crypto"),
                              .product(name: "ArgumentParser", package: "swift-argument-parser"),
                          ],
                          path: "Tools/cblite-bench"),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: [], path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"],
                    path: "Tests/TestSupportTests"),
        .testTarget(name: "BlobStoreTests",
                    dependencies: ["BlobStore", "TestSupport",
                                   .product(name: "Crypto", package: "swift-crypto")],
                    path: "Tests/BlobStoreTests"),
    ],
    swiftLanguageModes: [.v6]
)
