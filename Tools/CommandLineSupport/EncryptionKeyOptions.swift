import ArgumentParser
import FoundationEssentials
import LiteDatabase
import LiteSupport

/// `--encryption-key-file FILE` (32 raw bytes) or `--encryption-password-file FILE` (the first
/// line is the password): the key of an encrypted database, shared by every tool command that
/// opens one. Files rather than arguments, so a key never shows in `ps` or a shell's history.
package struct EncryptionKeyOptions: ParsableArguments {
    @Option(name: .customLong("encryption-key-file"),
            help: "A file holding the database's AES-256 key: exactly 32 raw bytes.")
    var keyFile: String?

    @Option(name: .customLong("encryption-password-file"),
            help: "A file whose first line is the database's password (the key is derived as Couchbase Lite derives it).")
    var passwordFile: String?

    /// What the parser starts from (it fills the options in).
    package init() {}

    /// Options naming these files (nil: none), for a command made in code rather than parsed
    /// (a parsed one's options are unset until parsing sets them).
    package init(keyFile: String?, passwordFile: String? = nil) {
        self.keyFile = keyFile
        self.passwordFile = passwordFile
    }

    /// The options as command-line arguments, to hand on to another command (`--name=value`, so
    /// that a path starting with `-` stays a value).
    package var arguments: [String] {
        (keyFile.map { ["--encryption-key-file=\($0)"] } ?? []) + (passwordFile.map { ["--encryption-password-file=\($0)"] } ?? [])
    }

    /// The key the options name, or nil when they name none.
    ///
    /// - Throws: `ValidationError` for both options at once, a missing or unreadable file, a key
    ///   file that is not 32 bytes, or an empty password.
    package func key() throws -> AES256Key? {
        try Self.key(keyFile: keyFile, passwordFile: passwordFile, options: ("--encryption-key-file", "--encryption-password-file"))
    }

    /// The key in `keyFile` or derived from the password in `passwordFile` (at most one given);
    /// `options` are their names, for the messages.
    package static func key(keyFile: String?, passwordFile: String?, options: (key: String, password: String)) throws -> AES256Key? {
        switch (keyFile, passwordFile) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw ValidationError("give \(options.key) or \(options.password), not both")
        case (let path?, nil):
            let bytes = try contents(of: path, option: options.key)
            guard let key = AES256Key(bytes: bytes) else {
                throw ValidationError("\(options.key) \(path) holds \(bytes.count) bytes; an AES-256 key is exactly "
                                      + "\(AES256Key.byteCount) raw bytes (e.g. head -c 32 /dev/urandom > \(path))")
            }
            return key
        case (nil, let path?):
            let text = String(decoding: try contents(of: path, option: options.password), as: UTF8.self)
            var line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            if line.hasSuffix("\r") { line.removeLast() }
            guard !line.isEmpty else {
                throw ValidationError("\(options.password) \(path) has an empty first line; it must hold the password")
            }
            return try AES256Key(password: line)
        }
    }

    private static func contents(of path: String, option: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(option) \(path): no such file, or it cannot be read")
        }
        return Array(data)
    }
}
