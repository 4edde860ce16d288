import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C library's calls under names that do not clash with the wrappers' own method names.

func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }

func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

func systemPositionedRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
    pread(fd, buffer, count, offset)
}

func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

func systemClose(_ fd: Int32) -> Int32 { close(fd) }

func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }

func systemLink(_ source: String, _ destination: String) -> Int32 { link(source, destination) }
