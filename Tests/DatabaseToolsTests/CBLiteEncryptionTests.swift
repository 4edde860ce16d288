import Foundation
import LiteDatabase
import LiteSupport
import Testing
import TestSupport

/// The tools' `--encryption-key-file` / `--encryption-password-file` (issue 41): a database
/// created with a key keeps no plaintext, opens only with that key, and converts keeping,
/// changing or removing its encryption.
@Suite(.ownThreads) struct CBLiteEncryptionTests {
    private static let secret = "Zanzibar-lighthouse-7731"

    /// Writes a random 32-byte key file and returns its path.
    private func keyFile(in directory: TemporaryDirectory, _ name: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = directory.appending(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Whether any file under `bundle` contains `text`'s bytes.
    private func plaintextFound(_ text: String, in bundle: String) throws -> Bool {
        let needle = Data(text.utf8)
        let enumerator = FileManager.default.enumerator(atPath: bundle)
        while let name = enumerator?.nextObject() as? String {
            let url = URL(fileURLWithPath: bundle).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else { continue }
            if data.range(of: needle) != nil { return true }
        }
        return false
    }

    @Test(arguments: StorageEngineKind.allCases)
    func putWithAKeyFileCreatesAnEncryptedDatabaseThatOpensOnlyWithIt(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("secret.cblite2").path
            let key = try keyFile(in: directory, "key.bin")
            let put = try ToolRunner.cblite("put", db, "doc-\(Self.secret)", #"{"note":"\#(Self.secret)"}"#,
                                            "--engine", engine.rawValue, "--encryption-key-file", key)
            #expect(put.status == 0, "\(put.stderr)")
            #expect(try !plaintextFound(Self.secret, in: db))
            let cat = try ToolRunner.cblite("cat", db, "doc-\(Self.secret)", "--raw", "--encryption-key-file", key)
            #expect(cat.status == 0, "\(cat.stderr)")
            #expect(cat.output == "{\"note\":\"\(Self.secret)\"}\n")
            let withoutKey = try ToolRunner.cblite("cat", db, "doc-\(Self.secret)", "--raw")
            #expect(withoutKey.status != 0)
            #expect(withoutKey.stderr.lowercased().contains("key"), "\(withoutKey.stderr)")
            let otherKey = try keyFile(in: directory, "other.bin")
            let wrongKey = try ToolRunner.cblite("ls", db, "--encryption-key-file", otherKey)
            #expect(wrongKey.status != 0)
            #expect(wrongKey.stderr.lowercased().contains("key"), "\(wrongKey.stderr)")
        }
    }

    @Test func aPasswordFileGivesTheSameKeyEveryTime() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("pw.cblite2").path
            let passwordFile = directory.appending("pw.txt").path
            try Data("correct horse battery staple\nignored second line\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
            let put = try ToolRunner.cblite("put", db, "doc", #"{"note":"\#(Self.secret)"}"#,
                                            "--encryption-password-file", passwordFile)
            #expect(put.status == 0, "\(put.stderr)")
            #expect(try !plaintextFound(Self.secret, in: db))
            let cat = try ToolRunner.cblite("cat", db, "doc", "--raw", "--encryption-password-file", passwordFile)
            #expect(cat.output == "{\"note\":\"\(Self.secret)\"}\n", "\(cat.stderr)")
        }
    }

    @Test func badKeyOptionsAreRefusedInOneLineWithoutCreatingAnything() throws {
        try withTemporaryDirectory { directory in
            let db = directory.appending("never.cblite2").path
            let short = directory.appending("short.bin").path
            try Data(repeating: 7, count: 16).write(to: URL(fileURLWithPath: short))
            let empty = directory.appending("empty.txt").path
            try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
            let cases: [([String], String)] = [
                (["--encryption-key-file", short], "32"),
                (["--encryption-password-file", empty], "empty"),
                (["--encryption-key-file", directory.appending("missing.bin").path], "no such file"),
                (["--encryption-key-file", short, "--encryption-password-file", empty], "not both"),
            ]
            for (options, text) in cases {
                let result = try ToolRunner.run("cblite", ["put", db, "doc", "{}"] + options)
                #expect(result.status != 0)
                #expect(result.stderr.contains(text), "\(result.stderr)")
                #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: db))
            }
        }
    }

    @Test func passwordDerivationMatchesCouchbaseLite() throws {
        // PBKDF2-HMAC-SHA256, salt "Salty McNaCl", 64,000 rounds, 32 bytes; computed
        // independently with Python's hashlib.pbkdf2_hmac.
        let vectors = [
            "password": "23b567cd4fbf948b73a0105b53eda0a085f881da07827e0e5e1a519aeb963ee4",
            "correct horse battery staple": "9f3a0deff3efedc72efff1b96a7c91575f20e7fe14b9e36784a1a17b8c433842",
        ]
        for (password, hex) in vectors {
            let key = try AES256Key(password: password)
            #expect(key.bytes.map { String(format: "%02x", $0) }.joined() == hex)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func pushFromAnEncryptedDatabaseTakesItsKey(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let source = directory.appending("enc.cblite2").path
            let target = directory.appending("plain.cblite2").path
            let key = try keyFile(in: directory, "key.bin")
            let put = try ToolRunner.cblite("put", source, "doc", #"{"note":"\#(Self.secret)"}"#,
                                            "--engine", engine.rawValue, "--encryption-key-file", key)
            #expect(put.status == 0, "\(put.stderr)")
            #expect(try ToolRunner.cblite("put", target, "other", "{}").status == 0)
            let refused = try ToolRunner.cblite("push", source, target)
            #expect(refused.status != 0)
            #expect(refused.stderr.lowercased().contains("key"), "\(refused.stderr)")
            let push = try ToolRunner.cblite("push", source, target, "--encryption-key-file", key)
            #expect(push.status == 0, "\(push.stderr)")
            #expect(try ToolRunner.cblite("cat", target, "doc", "--raw").output == "{\"note\":\"\(Self.secret)\"}\n")
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func convertKeepsChangesOrRemovesTheEncryption(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let source = directory.appending("source.cblite2").path
            let key = try keyFile(in: directory, "key.bin")
            let newKey = try keyFile(in: directory, "new.bin")
            let put = try ToolRunner.cblite("put", source, "doc", #"{"note":"\#(Self.secret)"}"#,
                                            "--engine", engine.rawValue, "--encryption-key-file", key)
            #expect(put.status == 0, "\(put.stderr)")
            let expected = "{\"note\":\"\(Self.secret)\"}\n"

            let kept = directory.appending("kept.cblite2").path
            let keep = try ToolRunner.convert(source, kept, "--encryption-key-file", key, "--verify", "--quiet")
            #expect(keep.status == 0, "\(keep.stderr)")
            #expect(try !plaintextFound(Self.secret, in: kept))
            #expect(try ToolRunner.cblite("cat", kept, "doc", "--raw", "--encryption-key-file", key).output == expected)

            let changed = directory.appending("changed.cblite2").path
            let change = try ToolRunner.convert(source, changed, "--encryption-key-file", key,
                                                "--new-encryption-key-file", newKey, "--verify", "--quiet")
            #expect(change.status == 0, "\(change.stderr)")
            #expect(try !plaintextFound(Self.secret, in: changed))
            #expect(try ToolRunner.cblite("cat", changed, "doc", "--raw", "--encryption-key-file", newKey).output == expected)
            #expect(try ToolRunner.cblite("cat", changed, "doc", "--raw", "--encryption-key-file", key).status != 0)

            let plain = directory.appending("plain.cblite2").path
            let remove = try ToolRunner.convert(source, plain, "--encryption-key-file", key, "--remove-encryption",
                                                "--verify", "--quiet")
            #expect(remove.status == 0, "\(remove.stderr)")
            #expect(try ToolRunner.cblite("cat", plain, "doc", "--raw").output == expected)

            let withoutKey = try ToolRunner.convert(source, directory.appending("never.cblite2").path, "--quiet")
            #expect(withoutKey.status != 0)
            #expect(!FileManager.default.fileExists(atPath: directory.appending("never.cblite2").path))
        }
    }
}
