extension DataFile {
    /// A plain ``byteKeyStore(_:)``, for engines that link nothing.
    package func indexStore(_ name: String, over keyStore: String) throws -> any ByteKeyStore {
        try byteKeyStore(name)
    }
}
