import Crypto
import FoundationEssentials
import LiteSupport

/// AES-256-GCM over one unit of an encrypted SQLite file (a database page, a WAL frame, a
/// journal's page image), in place: the unit's last ``reserveSize`` bytes — the page's reserved
/// bytes, which SQLite never uses itself — hold a fresh random nonce and the tag. Layout and
/// reasons: docs/security.md.
struct SQLitePageCipher: Sendable {
    /// Bytes of nonce at the end of a unit.
    static let nonceSize = 12
    /// Bytes of tag after the nonce.
    static let tagSize = 16
    /// The reserved bytes every page of an encrypted database has (`SQLITE_FCNTL_RESERVE_BYTES`).
    static let reserveSize = nonceSize + tagSize

    /// What a unit is: part of the associated data, so a unit moved to another place or file
    /// kind fails authentication.
    enum Domain: UInt8 {
        /// A page of the database file; the position is the page number.
        case databasePage = 0x44
        /// A WAL frame (its 24-byte header and its page); the position is the frame's offset.
        case walFrame = 0x57
        /// A page image in a rollback journal; the position is its offset.
        case journalPage = 0x4A
    }

    private let key: SymmetricKey

    /// A cipher with `key`.
    init(key: AES256Key) {
        self.key = SymmetricKey(data: key.bytes)
    }

    /// Encrypts `unit[start..<unit.count - reserveSize]` in place and stores nonce and tag in the
    /// unit's last bytes; `unit[0..<start]` stays as it is and is authenticated.
    func seal(_ unit: UnsafeMutableRawBufferPointer, from start: Int, domain: Domain, position: UInt64) -> Bool {
        let end = unit.count - Self.reserveSize
        guard start >= 0, start <= end, let base = unit.baseAddress else { return false }
        let associated = associatedData(domain: domain, position: position, clear: UnsafeRawBufferPointer(rebasing: unit[0..<start]))
        let plaintext = UnsafeRawBufferPointer(start: base + start, count: end - start)
        guard let box = try? AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(), authenticating: associated) else {  // allowed: a failed seal returns false, which the VFS reports as an I/O error
            return false
        }
        let ciphertext = box.ciphertext
        guard ciphertext.count == end - start, box.tag.count == Self.tagSize else { return false }
        // Copied as raw memory: the generic `DataProtocol.copyBytes(to:)` cost a quarter of a seal.
        Self.copy(ciphertext, to: base + start)
        box.nonce.withUnsafeBytes { nonce in
            UnsafeMutableRawBufferPointer(start: base + end, count: Self.nonceSize).copyMemory(from: nonce)
        }
        Self.copy(box.tag, to: base + end + Self.nonceSize)
        return true
    }

    /// Decrypts a unit `seal` made, in place, and zeroes its nonce and tag (SQLite sees reserved
    /// bytes of zero, as it wrote them). False, leaving `unit` unspecified, when it does not
    /// authenticate: a wrong key, a damaged or altered unit, or one that was never written whole.
    func open(_ unit: UnsafeMutableRawBufferPointer, from start: Int, domain: Domain, position: UInt64) -> Bool {
        let end = unit.count - Self.reserveSize
        guard start >= 0, start <= end, let base = unit.baseAddress else { return false }
        let associated = associatedData(domain: domain, position: position, clear: UnsafeRawBufferPointer(rebasing: unit[0..<start]))
        guard let nonce = try? AES.GCM.Nonce(data: UnsafeRawBufferPointer(start: base + end, count: Self.nonceSize)),  // allowed: any failure here is "does not authenticate", reported by the caller
              let box = try? AES.GCM.SealedBox(  // allowed: as above
                nonce: nonce, ciphertext: UnsafeRawBufferPointer(start: base + start, count: end - start),
                tag: UnsafeRawBufferPointer(start: base + end + Self.nonceSize, count: Self.tagSize)),
              let plaintext = try? AES.GCM.open(box, using: key, authenticating: associated),  // allowed: as above
              plaintext.count == end - start else { return false }
        Self.copy(plaintext, to: base + start)
        UnsafeMutableRawBufferPointer(start: base + end, count: Self.reserveSize).initializeMemory(as: UInt8.self, repeating: 0)
        return true
    }

    /// Copies all of `data` to `destination`.
    private static func copy(_ data: Data, to destination: UnsafeMutableRawPointer) {
        data.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress else { return }
            destination.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    /// Domain byte, position (8 bytes big-endian), then the unit's clear prefix.
    private func associatedData(domain: Domain, position: UInt64, clear: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(9 + clear.count)
        bytes.append(domain.rawValue)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: position >> UInt64(shift))) }
        bytes.append(contentsOf: clear)
        return bytes
    }
}
