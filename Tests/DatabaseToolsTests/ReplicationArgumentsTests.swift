import CommandLineSupport
import Foundation
import PropertyBased
import Testing
import TestSupport

/// `cblite` parses the replication commands' arguments, then hands them to `cblite-replicate`
/// as the command line `commandLine` writes: it must parse back to the same values whatever
/// the values are, those starting with `-` or holding `=` and spaces included.
@Suite(.ownThreads) struct ReplicationArgumentsTests {
    // Characters that matter to an argument parser: dashes, `=`, spaces, slashes, colons.
    private static let text = Gen<Character?>.element(of: Array("ab-=: /.:x9_"))
        .map { $0 ?? "a" }.string(of: 1...10)

    @Test func replicationCommandLineParsesBackToTheSameValues() async throws {
        let strings = Self.text
        let optionals = Self.text.optional
        await propertyCheck(count: 300, input: strings, strings, optionals, optionals, optionals, Gen.bool) {
            database, target, user, password, pinned, continuous in
            var arguments = ReplicationArguments()
            arguments.database = database
            arguments.target = target
            arguments.user = user
            arguments.password = password
            arguments.pinnedCert = pinned
            arguments.continuous = continuous
            arguments.encryption = EncryptionKeyOptions(keyFile: pinned.map { $0 + ".key" })
            let parsed = try? ReplicationArguments.parse(arguments.commandLine)
            #expect(parsed?.database == database)
            #expect(parsed?.target == target)
            #expect(parsed?.user == user)
            #expect(parsed?.password == password)
            #expect(parsed?.pinnedCert == pinned)
            #expect(parsed?.continuous == continuous)
            #expect(parsed?.encryption.arguments == arguments.encryption.arguments)
        }
    }

    @Test func serveCommandLineParsesBackToTheSameValues() async throws {
        let strings = Self.text
        let optionals = Self.text.optional
        let ports = Gen.int(in: 0...65_535)
        await propertyCheck(count: 300, input: strings, ports, strings, optionals, optionals, Gen.bool) {
            database, port, host, user, certificate, flag in
            var arguments = ServeArguments()
            arguments.database = database
            arguments.port = UInt16(port)
            arguments.host = host
            arguments.user = user
            // The password itself never goes on a command line, only the file holding it.
            arguments.passwordFile = user.map { $0 + ".password" }
            arguments.password = nil
            arguments.tlsCert = certificate
            arguments.tlsKey = certificate.map { $0 + ".key" }
            arguments.tls = flag
            arguments.readonly = !flag
            arguments.encryption = EncryptionKeyOptions(keyFile: nil, passwordFile: certificate.map { $0 + ".pw" })
            let parsed = try? ServeArguments.parse(arguments.commandLine)
            #expect(parsed?.database == database)
            #expect(parsed?.port == UInt16(port))
            #expect(parsed?.host == host)
            #expect(parsed?.user == user)
            #expect(parsed?.passwordFile == arguments.passwordFile)
            #expect(parsed.map { $0.password == nil } == true)
            #expect(parsed?.tlsCert == certificate)
            #expect(parsed?.tlsKey == arguments.tlsKey)
            #expect(parsed?.tls == flag)
            #expect(parsed?.readonly == !flag)
        }
    }

    /// Without `cblite-replicate` beside it, `cblite push` says what is missing and how to get it.
    @Test func pushWithoutTheHelperSaysWhatIsMissing() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("cblite-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // allowed: a scratch folder of this test
        let built = try #require(ToolRunner.productsDirectory).appendingPathComponent("cblite")
        let alone = folder.appendingPathComponent("cblite")
        try FileManager.default.copyItem(at: built, to: alone)
        let result = try ToolRunner.run(alone.path, ["push", folder.appendingPathComponent("db.cblite2").path,
                                                     "ws://127.0.0.1:9/db"], absolute: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("cblite push needs cblite-replicate beside cblite"))
        #expect(result.stderr.contains(folder.appendingPathComponent("cblite-replicate").path))
    }
}
