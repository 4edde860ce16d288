/// Follows one direction of a WebSocket connection byte by byte (the HTTP upgrade, then frame
/// headers and payloads) so a proxy can change a byte inside a chosen binary message's payload.
/// Masked payloads (client to server) work the same: flipping a masked byte flips the byte it
/// hides.
struct WebSocketPayloadScanner {
    /// The binary message (from 1) whose payload gets one byte flipped; nil: none.
    private var target: Int?
    private var upgraded = false
    /// How much of "\r\n\r\n" (the end of the HTTP headers) has been matched.
    private var headerEndMatched = 0
    private var header: [UInt8] = []
    private var headerLength = 2
    private var payloadLength = 0
    private var payloadRemaining = 0
    private var binaryMessages = 0
    private var corruptingThisPayload = false
    /// Whether the byte was flipped.
    private(set) var corrupted = false

    init(corruptMessage: Int?) {
        target = corruptMessage
    }

    /// Scans `bytes` (the next chunk of the stream) and flips the chosen byte if it is there.
    mutating func scan(_ bytes: inout [UInt8], count: Int) {
        var index = 0
        while index < count {
            let byte = bytes[index]
            if !upgraded {
                let expected: UInt8 = headerEndMatched % 2 == 0 ? 0x0D : 0x0A
                headerEndMatched = byte == expected ? headerEndMatched + 1 : (byte == 0x0D ? 1 : 0)
                if headerEndMatched == 4 { upgraded = true }
            } else if payloadRemaining > 0 {
                if corruptingThisPayload, payloadLength - payloadRemaining == payloadLength / 2 {
                    bytes[index] ^= 0xA5
                    corrupted = true
                    corruptingThisPayload = false
                }
                payloadRemaining -= 1
            } else {
                header.append(byte)
                if header.count == 2 {
                    let short = Int(header[1] & 0x7F)
                    headerLength = 2 + (short == 126 ? 2 : short == 127 ? 8 : 0) + (header[1] & 0x80 != 0 ? 4 : 0)
                }
                if header.count == headerLength { startPayload() }
            }
            index += 1
        }
    }

    private mutating func startPayload() {
        let short = Int(header[1] & 0x7F)
        var length = short
        if short == 126 || short == 127 {
            length = 0
            for byte in header[2..<(short == 126 ? 4 : 10)] { length = length << 8 | Int(byte) }
        }
        let opcode = header[0] & 0x0F
        header.removeAll(keepingCapacity: true)
        headerLength = 2
        payloadLength = length
        payloadRemaining = length
        corruptingThisPayload = false
        guard opcode == 2, let wanted = target, !corrupted else { return }
        binaryMessages += 1
        guard binaryMessages >= wanted else { return }
        // Long enough that the middle byte is past the BLIP header and before its checksum.
        if length >= 16 { corruptingThisPayload = true } else { target = wanted + 1 }
    }
}
