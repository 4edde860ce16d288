/// Lists every object key of a JSON text in the order it appears (depth-first, as written), so
/// tests can check that key order survived, which a parsed dictionary cannot show.
enum JSONKeyOrder {
    static func keys(_ json: [UInt8]) -> [String] {
        var keys: [String] = []
        var index = 0
        while index < json.count {
            guard json[index] == UInt8(ascii: "\"") else { index += 1; continue }
            let start = index + 1
            index = start
            while index < json.count, json[index] != UInt8(ascii: "\"") {
                index += json[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            let string = String(decoding: json[start..<min(index, json.count)], as: UTF8.self)
            index += 1
            var next = index
            while next < json.count, [0x20, 0x09, 0x0A, 0x0D].contains(json[next]) { next += 1 }
            if next < json.count, json[next] == UInt8(ascii: ":") { keys.append(string) }
        }
        return keys
    }

    static func keys(_ json: String) -> [String] { keys(Array(json.utf8)) }
}
