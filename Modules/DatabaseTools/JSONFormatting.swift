import Fleece
import FoundationEssentials

/// JSON text for document bodies, keeping stored key order.
package enum JSONFormatting {
    /// `value` as indented JSON (two spaces), keys in stored order.
    package static func pretty(_ value: FleeceValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out
    }

    private static func write(_ value: FleeceValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        if let dict = value.dictionary, !dict.isEmpty {
            out += "{\n"
            var first = true
            for (key, item) in dict {
                if !first { out += ",\n" }
                first = false
                out += inner + quoted(key) + ": "
                write(item, indent: inner, into: &out)
            }
            out += "\n" + indent + "}"
        } else if let array = value.array, !array.isEmpty {
            out += "[\n"
            var first = true
            for item in array {
                if !first { out += ",\n" }
                first = false
                out += inner
                write(item, indent: inner, into: &out)
            }
            out += "\n" + indent + "]"
        } else {
            out += value.json()
        }
    }

    /// `text` as a JSON string literal.
    package static func quoted(_ text: String) -> String { JSONQuoting.quoted(text) }

    /// A body's compact JSON with `"_id"` (and `"_rev"`) first, as `export` and `cat --rev` print it.
    package static func withMeta(_ body: FleeceValue, id: String, rev: String?) -> String {
        var prefix = "{\"_id\":" + quoted(id)
        if let rev { prefix += ",\"_rev\":" + quoted(rev) }
        let json = body.json()
        guard json.hasPrefix("{"), json.count > 2 else { return prefix + "}" }
        return prefix + "," + json.dropFirst()
    }
}
