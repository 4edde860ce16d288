/// Reads of a baseline; each returns the body bytes read, so nothing is optimised away.
protocol RawReader {
    func read(_ key: String) throws -> Int
    func scanBySequence() throws -> Int
    func close()
}
