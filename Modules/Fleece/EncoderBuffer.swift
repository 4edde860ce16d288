/// A growable run of plain values in memory it owns and frees: the encoder's output bytes and
/// its stacks of pending items.
///
/// `Array` checks that its buffer is uniquely referenced and keeps its capacity in that buffer,
/// on every append; the encoder appends a few times per value it writes, and those checks were
/// a tenth of encoding (decision Fleece-12). It cannot be copied, so its memory has one owner.
///
/// ```swift
/// var bytes = EncoderBuffer<UInt8>(capacity: 64)
/// bytes.append(0x40)
/// let first = bytes[0]
/// ```
struct EncoderBuffer<Element: BitwiseCopyable>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    /// The number of values held.
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 16) {
        self.capacity = max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// The value at `index` (which must be below `count`), read or written in place.
    subscript(index: Int) -> Element {
        unsafeAddress { UnsafePointer(base + index) }
        nonmutating unsafeMutableAddress { base + index }
    }

    var last: Element {
        unsafeAddress { UnsafePointer(base + (count - 1)) }
        nonmutating unsafeMutableAddress { base + (count - 1) }
    }

    @inline(__always)
    mutating func append(_ value: Element) {
        if count == capacity { grow(toAtLeast: count + 1) }
        (base + count).initialize(to: value)
        count += 1
    }

    /// Makes room for `extra` more values without growing again.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toAtLeast: count + extra) }
    }

    /// Drops the values from `newCount` on.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        count = newCount
    }

    mutating func removeAll() { count = 0 }

    @inline(never)
    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

extension EncoderBuffer where Element == UInt8 {
    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        let extra = bytes.count
        guard extra > 0, let source = bytes.baseAddress else { return }
        reserve(extra)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: extra)
        count += extra
    }

    /// Appends `extra` zero bytes and returns where they start.
    @inline(__always)
    mutating func appendZeros(_ extra: Int) -> Int {
        reserve(extra)
        let start = count
        (base + start).initialize(repeating: 0, count: extra)
        count += extra
        return start
    }

    /// The bytes held, valid until the next append.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// The bytes held, writable in place, valid until the next append.
    var mutableBytes: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    /// A copy of the bytes held.
    func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
