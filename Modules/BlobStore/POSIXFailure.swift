import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which one, on which path, and `errno`'s meaning.
package struct POSIXFailure: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    init(operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    var isNotFound: Bool { code == ENOENT }

    package var description: String {
        "\(operation) \"\(path)\": \(String(cString: strerror(code))) (errno \(code))"
    }
}
