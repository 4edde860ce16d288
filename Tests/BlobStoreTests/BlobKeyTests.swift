import TestSupport
import BlobStore
import Foundation
import Testing

@Suite(.ownThreads) struct BlobKeyTests {
    @Test func keyStringParsesAndPrintsTheSameText() throws {
        let text = "sha1-P1i5kI/sosq745/9BDR7kEghKps="
        let key = try BlobKey(text)
        #expect(key.string == text)
        #expect(key.description == text)
        #expect(key.base64Digest == "P1i5kI/sosq745/9BDR7kEghKps=")
    }

    @Test func hashingGivesTheKnownSHA1OfABC() {
        // FIPS 180 example: SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d.
        let key = BlobKey(hashing: Array("abc".utf8))
        #expect(key.hexDigest == "A9993E364706816ABA3E25717850C26C9CD0D89D")
        #expect(key.string == "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
    }

    @Test func hashingAgreesWithTheReferenceSHA1() throws {
        for count in [0, 1, 55, 56, 63, 64, 65, 1000, 100_003] {
            let content = TestContent.bytes(count: count, seed: UInt64(count))
            #expect(BlobKey(hashing: content) == (try TestContent.referenceKey(content)), "\(count) bytes")
        }
    }

    @Test func digestInitialiserKeepsTheBytes() throws {
        let digest = ReferenceSHA1.digest(Array("attach1".utf8))
        let key = try BlobKey(digest: digest)
        #expect(key.digest == digest)
        #expect(key == (try BlobKey("sha1-P1i5kI/sosq745/9BDR7kEghKps=")))
    }

    @Test(arguments: [0, 19, 21, 32])
    func digestOfTheWrongLengthIsRejected(length: Int) {
        #expect { try BlobKey(digest: [UInt8](repeating: 7, count: length)) } throws: { error in
            (error as? BlobStoreError)?.code == .invalidKey
        }
    }

    @Test(arguments: [
        "",
        "sha1-",
        "P1i5kI/sosq745/9BDR7kEghKps=",                    // no prefix
        "SHA1-P1i5kI/sosq745/9BDR7kEghKps=",               // prefix is case-sensitive
        "md5-P1i5kI/sosq745/9BDR7kEghKps=",
        "sha256-P1i5kI/sosq745/9BDR7kEghKps=",
        "sha1-P1i5kI/sosq745/9BDR7kEghKps",                 // padding missing
        "sha1-P1i5kI/sosq745/9BDR7kEghKps==",               // too long
        "sha1-P1i5kI/sosq745/9BDR7kEghKp=",                 // too short
        "sha1-P1i5kI_sosq745_9BDR7kEghKps=",                // file-name alphabet
        "sha1-P1i5kI/sosq745/9BDR7kEghKpt=",                // non-canonical last character
        "sha1-P1i5kI/sosq745/9BDR7kEghK!s=",
        " sha1-P1i5kI/sosq745/9BDR7kEghKps=",
        "sha1-P1i5kI/sosq745/9BDR7kEghKps= ",
        "sha1-P1i5kI/sosq745/9BDR7kEghKps=\n",
        "sha1-../../../../../../etc/passwd=",
        "sha1-/etc/passwd",
        "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0AAAAA",              // 24-byte digest
        "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2A==",                 // 19-byte digest
        "sha1-\u{0}Zk+NkcGgWq6PiVxeFDCbJzQ2J0=",
    ])
    func malformedKeyStringIsRejected(text: String) {
        #expect { try BlobKey(text) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .invalidKey && error.message.contains("invalid blob key")
        }
    }

    @Test func fileNameReplacesSlashWithUnderscore() throws {
        let key = try BlobKey("sha1-P1i5kI/sosq745/9BDR7kEghKps=")
        #expect(key.fileName == "P1i5kI_sosq745_9BDR7kEghKps=.blob")
        #expect(try BlobKey(fileName: key.fileName) == key)
    }

    @Test func fileNameRoundTripsForManyDigests() throws {
        for seed in 1...200 {
            let key = BlobKey(hashing: TestContent.bytes(count: 16, seed: UInt64(seed)))
            #expect(try BlobKey(fileName: key.fileName) == key)
            #expect(try BlobKey(key.string) == key)
            #expect(try BlobKey(legacyFileName: key.legacyFileName) == key)
        }
    }

    @Test(arguments: [
        "P1i5kI_sosq745_9BDR7kEghKps=",                    // no extension
        "P1i5kI_sosq745_9BDR7kEghKps=.blob.tmp",
        "P1i5kI/sosq745/9BDR7kEghKps=.blob",               // a path, not a name
        "incoming_abc123",
        "P1i5kI_sosq745_9BDR7kEghKps.blob",
        ".blob",
        "3F58B9908FECA2CABBE39FFD04347B9048212A9B.blob",   // a 1.x name
    ])
    func malformedFileNameIsRejected(name: String) {
        #expect { try BlobKey(fileName: name) } throws: { error in
            (error as? BlobStoreError)?.code == .invalidKey
        }
    }

    @Test func legacyFileNameIsUppercaseHex() throws {
        let key = try BlobKey("sha1-P1i5kI/sosq745/9BDR7kEghKps=")
        #expect(key.legacyFileName == "3F58B9908FECA2CABBE39FFD04347B9048212A9B.blob")
        #expect(try BlobKey(legacyFileName: "3F58B9908FECA2CABBE39FFD04347B9048212A9B.blob") == key)
    }

    @Test func lowercaseLegacyFileNameIsAccepted() throws {
        let key = try BlobKey(legacyFileName: "3f58b9908feca2cabbe39ffd04347b9048212a9b.blob")
        #expect(key.string == "sha1-P1i5kI/sosq745/9BDR7kEghKps=")
    }

    @Test(arguments: [
        "3F58B9908FECA2CABBE39FFD04347B9048212A9.blob",     // 39 digits
        "3F58B9908FECA2CABBE39FFD04347B9048212A9BB.blob",   // 41 digits
        "3F58B9908FECA2CABBE39FFD04347B9048212A9G.blob",    // not hex
        "3F58B9908FECA2CABBE39FFD04347B9048212A9B",
        "3F58B9908FECA2CABBE39FFD04347B9048212A9B.BLOB",
        "P1i5kI_sosq745_9BDR7kEghKps=.blob",                // a 2.x name
    ])
    func malformedLegacyFileNameIsRejected(name: String) {
        #expect { try BlobKey(legacyFileName: name) } throws: { error in
            (error as? BlobStoreError)?.code == .invalidKey
        }
    }

    @Test func keysOrderByDigestBytes() throws {
        let low = try BlobKey(digest: [UInt8](repeating: 0, count: 20))
        let high = try BlobKey(digest: [UInt8](repeating: 0xFF, count: 20))
        #expect(low < high)
        #expect(!(high < low))
    }
}
