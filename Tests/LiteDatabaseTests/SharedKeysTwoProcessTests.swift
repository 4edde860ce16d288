import Fleece
import Foundation
import TestSupport
import Testing
@testable import LiteDatabase

/// Two processes write one SQLite database (the engine supports it), each adding property
/// names the other has not seen, in turns: each must load the other's keys before numbering
/// its own, and every document must read back exactly in both.
@Suite(.ownThreads) struct SharedKeysTwoProcessTests {
    private static let directoryVariable = "CBL_SHARED_KEYS_CHILD_DIRECTORY"
    private static let rounds = 12

    static var isChild: Bool { ProcessInfo.processInfo.environment[directoryVariable] != nil }

    private static func open(_ directory: String) throws -> DatabaseCore {
        try DatabaseCore(bundle: DatabaseBundle(name: "shared", directory: directory),
                         registry: StorageEngineKind.sqlite.registry, engineName: nil)
    }

    private static func document(_ side: String, _ round: Int) -> (id: String, json: String) {
        ("\(side)-\(round)", #"{"\#(side)\#(round)a":\#(round),"\#(side)\#(round)b":"\#(side)"}"#)
    }

    @Test func twoProcessesAddingKeysInTurnsAgree() throws {
        try withTemporaryDirectory { directory in
            let core = try DatabaseCore(bundle: DatabaseBundle(name: "shared", directory: directory.path),
                                        registry: StorageEngineKind.sqlite.registry, engineName: "SQLite")
            defer { try? core.close() }
            try save(core, "start", #"{"common":1}"#)

            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            child.arguments = ["--testing-library", "swift-testing", "--filter", "sharedKeysChild"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.directoryVariable] = directory.path
            child.environment = environment
            let toChild = Pipe(), fromChild = Pipe()
            child.standardInput = toChild
            child.standardOutput = fromChild
            child.standardError = FileHandle.nullDevice
            try child.run()
            var pending = Data()
            func readLineFromChild() -> String? {
                while true {
                    if let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[..<newline], as: UTF8.self)
                        pending.removeSubrange(...newline)
                        return line
                    }
                    let chunk = fromChild.fileHandleForReading.availableData
                    if chunk.isEmpty { return nil }
                    pending.append(chunk)
                }
            }

            for round in 0..<Self.rounds {
                let mine = Self.document("parent", round)
                try save(core, mine.id, mine.json)
                toChild.fileHandleForWriting.write(Data("\(round)\n".utf8))
                var reply: String?
                repeat { reply = readLineFromChild() } while reply != nil && !(reply ?? "").hasPrefix("saved")
                #expect(reply == "saved \(round)")
            }
            toChild.fileHandleForWriting.write(Data("end\n".utf8))
            child.waitUntilExit()
            #expect(child.terminationStatus == 0)

            for round in 0..<Self.rounds {
                for side in ["parent", "child"] {
                    let expected = Self.document(side, round)
                    #expect(try json(core, expected.id) == expected.json)
                }
            }
            #expect(core.sharedKeys.count == 1 + 4 * Self.rounds)
        }
    }

    /// Runs in the child process only: for each round the parent announces, saves its own
    /// document with new names, then checks every document the parent saved so far.
    @Test(.enabled(if: SharedKeysTwoProcessTests.isChild))
    func sharedKeysChild() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.directoryVariable])
        let core = try Self.open(directory)
        defer { try? core.close() }
        while let line = readLine(), line != "end" {
            let round = try #require(Int(line))
            let mine = Self.document("child", round)
            try save(core, mine.id, mine.json)
            for earlier in 0...round {
                let theirs = Self.document("parent", earlier)
                guard try json(core, theirs.id) == theirs.json else {
                    FileHandle.standardOutput.write(Data("mismatch \(round)\n".utf8))
                    exit(3)
                }
            }
            FileHandle.standardOutput.write(Data("saved \(round)\n".utf8))
        }
        exit(0)
    }
}
