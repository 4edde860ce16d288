import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LiteStorage

/// What LiteCore's FTS4 tables need from a connection that writes to them: the tokenizer named
/// `unicodesn` (registered through SQLite's `fts3_tokenizer()`, the tokens made by a
/// ``ForeignTextTokenizer``) and `fl_fts_value(body, path)` (the text their triggers index).
///
/// Couchbase Lite 2.x declares each full-text index as
/// `CREATE VIRTUAL TABLE "kv_default::name" USING fts4("prop", tokenize=unicodesn "stopwords=en"
/// "stemmer=en" "remove_diacritics=0")`, fed by triggers on `kv_default`; SQLite needs both
/// names on every connection that saves a document into such a file.
enum SQLiteUnicodeSNTokenizer {
    /// The tokenizer name LiteCore's tables declare.
    static let name = "unicodesn"

    /// Registers the tokenizer and `fl_fts_value` on `connection`.
    static func register(on connection: SQLiteConnection, reader: any RecordValueReader) throws {
        let enabled = csqlite_enable_fts3_tokenizer(connection.handle)
        guard enabled == SQLITE_OK else {
            throw connection.error(enabled, doing: "enabling fts3_tokenizer() to register the \(name) tokenizer")
        }
        let statement = try connection.prepare("SELECT fts3_tokenizer(?1, ?2)")
        defer { statement.finalize() }
        statement.bind(1, name)
        statement.bind(2, withUnsafeBytes(of: module) { Array($0) })
        _ = try statement.step()

        let context = Unmanaged.passRetained(SQLiteFleeceFunctions.Context(reader: reader)).toOpaque()
        let result = sqlite3_create_function_v2(
            connection.handle, "fl_fts_value", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context,
            { sqlContext, _, values in SQLiteUnicodeSNTokenizer.fullTextValue(sqlContext, values) },
            nil, nil,
            { pointer in if let pointer { Unmanaged<SQLiteFleeceFunctions.Context>.fromOpaque(pointer).release() } })
        guard result == SQLITE_OK else {
            throw connection.error(result, doing: "registering the SQL function fl_fts_value")
        }
    }

    // MARK: fl_fts_value

    /// `fl_fts_value(body, path)`: the text of the value at `path`, as LiteCore indexes it — a
    /// string as it is, a number in decimal, a boolean as `T` or `F`, NULL when missing. (LiteCore
    /// also concatenates the scalars inside an array or dictionary; here those index nothing —
    /// the engine sees Fleece collections only as bytes.)
    private static func fullTextValue(_ sqlContext: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let sqlContext, let values, let pointer = sqlite3_user_data(sqlContext) else { return }
        let context = Unmanaged<SQLiteFleeceFunctions.Context>.fromOpaque(pointer).takeUnretainedValue()
        var path: String?
        if let pathValue = values[1], sqlite3_value_type(pathValue) != SQLITE_NULL, let text = sqlite3_value_text(pathValue) {
            path = String(cString: text)
        }
        do {
            let scalar: StoredScalar
            if let bodyValue = values[0], sqlite3_value_type(bodyValue) == SQLITE_BLOB, let blob = sqlite3_value_blob(bodyValue) {
                let body = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_value_bytes(bodyValue)))
                scalar = try context.reader.value(atPath: path, inRecordBody: body)
            } else {
                scalar = try context.reader.value(atPath: path, inRecordBody: nil)
            }
            var text: String
            switch scalar {
            case .missing:
                sqlite3_result_null(sqlContext)
                return
            case .null, .encoded: text = ""
            case .bool(let value): text = value ? "T" : "F"
            case .int(let value): text = String(value)
            case .unsigned(let value): text = String(value)
            case .double(let value): text = String(value)
            case .text(let value): text = value
            }
            text.withUTF8 { bytes in
                sqlite3_result_text(sqlContext, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                    Int32(clamping: bytes.count), sqliteTransient)
            }
        } catch {
            sqlite3_result_error(sqlContext, "\(error)", -1)
        }
    }

    // MARK: The tokenizer module

    /// The tokens of one text, handed to SQLite one by one.
    private final class Cursor {
        var tokens: [(term: [UInt8], position: Int, byteRange: Range<Int>)] = []
        var next = 0
        /// The current term, NUL-terminated; SQLite reads it until the next call.
        private var buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 64)
        private var capacity = 64

        /// `term` copied into the cursor's buffer.
        func hold(_ term: [UInt8]) -> UnsafePointer<CChar> {
            if term.count + 1 > capacity {
                buffer.deallocate()
                capacity = term.count + 1
                buffer = .allocate(capacity: capacity)
            }
            for (index, byte) in term.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[term.count] = 0
            return UnsafePointer(buffer)
        }

        deinit { buffer.deallocate() }
    }

    /// The module SQLite calls. Allocated once and never freed: SQLite keeps its address in
    /// every connection's tokenizer hash for the life of the process.
    nonisolated(unsafe) private static let module: UnsafeMutablePointer<sqlite3_tokenizer_module> = {
        let module = UnsafeMutablePointer<sqlite3_tokenizer_module>.allocate(capacity: 1)
        module.initialize(to: sqlite3_tokenizer_module(
            iVersion: 0,
            xCreate: { argc, argv, result in SQLiteUnicodeSNTokenizer.create(argc, argv, result) },
            xDestroy: { tokenizer in SQLiteUnicodeSNTokenizer.destroy(tokenizer) },
            xOpen: { tokenizer, input, count, result in SQLiteUnicodeSNTokenizer.open(tokenizer, input, count, result) },
            xClose: { cursor in SQLiteUnicodeSNTokenizer.close(cursor) },
            xNext: { cursor, token, count, start, end, position in
                SQLiteUnicodeSNTokenizer.next(cursor, token, count, start, end, position)
            },
            xLanguageid: nil))
        return module
    }()

    /// The box a tokenizer's context points to.
    private final class TokenizerBox {
        let tokenizer: any ForeignTextTokenizer
        init(_ tokenizer: any ForeignTextTokenizer) { self.tokenizer = tokenizer }
    }

    private static func create(_ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
                               _ result: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_tokenizer>?>?) -> Int32 {
        guard let result else { return SQLITE_MISUSE }
        var arguments: [String] = []
        for index in 0..<Int(max(argc, 0)) {
            if let argument = argv?[index] { arguments.append(String(cString: argument)) }
        }
        let tokenizer: any ForeignTextTokenizer
        do {
            tokenizer = try ForeignTextTokenizers.make(arguments: arguments)
        } catch {
            return SQLITE_ERROR
        }
        let made = UnsafeMutablePointer<csqlite_tokenizer>.allocate(capacity: 1)
        made.initialize(to: csqlite_tokenizer(base: sqlite3_tokenizer(pModule: module),
                                              context: Unmanaged.passRetained(TokenizerBox(tokenizer)).toOpaque()))
        result.pointee = UnsafeMutableRawPointer(made).assumingMemoryBound(to: sqlite3_tokenizer.self)
        return SQLITE_OK
    }

    private static func destroy(_ tokenizer: UnsafeMutablePointer<sqlite3_tokenizer>?) -> Int32 {
        free(tokenizer, as: csqlite_tokenizer.self, holding: TokenizerBox.self, in: \.context)
    }

    /// Frees what ``create(_:_:_:)`` or ``open(_:_:_:_:)`` made: `base` points at the start of
    /// a `Made`, whose `context` holds a retained `Owned`, which is released.
    private static func free<Base, Made, Owned: AnyObject>(
        _ base: UnsafeMutablePointer<Base>?, as made: Made.Type, holding owned: Owned.Type,
        in context: (Made) -> UnsafeMutableRawPointer?
    ) -> Int32 {
        guard let base else { return SQLITE_OK }
        let made = UnsafeMutableRawPointer(base).assumingMemoryBound(to: Made.self)
        if let pointer = context(made.pointee) { Unmanaged<Owned>.fromOpaque(pointer).release() }
        made.deinitialize(count: 1)
        made.deallocate()
        return SQLITE_OK
    }

    private static func open(_ tokenizer: UnsafeMutablePointer<sqlite3_tokenizer>?, _ input: UnsafePointer<CChar>?,
                             _ count: Int32,
                             _ result: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_tokenizer_cursor>?>?) -> Int32 {
        guard let tokenizer, let result else { return SQLITE_MISUSE }
        let made = UnsafeMutableRawPointer(tokenizer).assumingMemoryBound(to: csqlite_tokenizer.self)
        guard let context = made.pointee.context else { return SQLITE_MISUSE }
        let box = Unmanaged<TokenizerBox>.fromOpaque(context).takeUnretainedValue()
        let text: String
        if let input {
            let length = count < 0 ? strlen(input) : Int(count)
            text = String(decoding: UnsafeRawBufferPointer(start: input, count: length), as: UTF8.self)
        } else {
            text = ""
        }
        let cursor = Cursor()
        box.tokenizer.forEachToken(in: text) { term, position, byteRange in
            cursor.tokens.append((Array(term.utf8), position, byteRange))
        }
        let opened = UnsafeMutablePointer<csqlite_tokenizer_cursor>.allocate(capacity: 1)
        opened.initialize(to: csqlite_tokenizer_cursor(base: sqlite3_tokenizer_cursor(pTokenizer: tokenizer),
                                                       context: Unmanaged.passRetained(cursor).toOpaque()))
        result.pointee = UnsafeMutableRawPointer(opened).assumingMemoryBound(to: sqlite3_tokenizer_cursor.self)
        return SQLITE_OK
    }

    private static func close(_ cursor: UnsafeMutablePointer<sqlite3_tokenizer_cursor>?) -> Int32 {
        free(cursor, as: csqlite_tokenizer_cursor.self, holding: Cursor.self, in: \.context)
    }

    private static func next(_ cursor: UnsafeMutablePointer<sqlite3_tokenizer_cursor>?,
                             _ token: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ count: UnsafeMutablePointer<Int32>?,
                             _ start: UnsafeMutablePointer<Int32>?, _ end: UnsafeMutablePointer<Int32>?,
                             _ position: UnsafeMutablePointer<Int32>?) -> Int32 {
        guard let cursor else { return SQLITE_MISUSE }
        let opened = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: csqlite_tokenizer_cursor.self)
        guard let context = opened.pointee.context else { return SQLITE_MISUSE }
        let state = Unmanaged<Cursor>.fromOpaque(context).takeUnretainedValue()
        guard state.next < state.tokens.count else { return SQLITE_DONE }
        let current = state.tokens[state.next]
        state.next += 1
        token?.pointee = state.hold(current.term)
        count?.pointee = Int32(clamping: current.term.count)
        start?.pointee = Int32(clamping: current.byteRange.lowerBound)
        end?.pointee = Int32(clamping: current.byteRange.upperBound)
        position?.pointee = Int32(clamping: current.position)
        return SQLITE_OK
    }
}
