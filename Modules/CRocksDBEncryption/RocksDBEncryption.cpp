// RocksDB's encrypted Env with an AES-256-CTR provider on OpenSSL; see include/CRocksDBEncryption.h
// and docs/security.md ("RocksDB engine") for the file format.
#include "CRocksDBEncryption.h"

#include <rocksdb/env.h>
#include <rocksdb/env_encryption.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

// The C API's handles, as rocksdb/c.cc (7.8) defines them: its options take an Env and a logger
// only through these, and c.h leaves them opaque.
struct rocksdb_env_t {
    rocksdb::Env *rep;
    bool is_default;
};
struct rocksdb_logger_t {
    std::shared_ptr<rocksdb::Logger> rep;
};

namespace {

constexpr size_t kKeySize = 32;
constexpr size_t kIVSize = 16;
constexpr size_t kCheckSize = 32;
// One page: RocksDB advises a prefix that keeps the data page-aligned.
constexpr size_t kPrefixLength = 4096;
constexpr unsigned char kMagic[8] = {'C', 'B', 'L', 'R', 'D', 'B', 'E', 'N'};
// Format version 1, a little-endian 32-bit integer.
constexpr unsigned char kVersion[4] = {1, 0, 0, 0};
constexpr size_t kVersionOffset = 8;
constexpr size_t kIVOffset = 16;
constexpr size_t kCheckOffset = 32;

// Separate keys for the cipher and the key check, derived from the database key, so that the
// value stored in every prefix says nothing about the encryption key itself.
constexpr char kCipherKeyLabel[] = "Couchbase Lite Swift RocksDB AES-256-CTR file key";
constexpr char kCheckKeyLabel[] = "Couchbase Lite Swift RocksDB key check";

bool hmacSHA256(const unsigned char *key, size_t keyLength, const unsigned char *data, size_t length,
                unsigned char out[32]) {
    unsigned int outLength = 0;
    return HMAC(EVP_sha256(), key, static_cast<int>(keyLength), data, length, out, &outLength) != nullptr
        && outLength == 32;
}

struct Keys {
    unsigned char cipherKey[kKeySize];
    unsigned char checkKey[kKeySize];
    // Tells a thread's cached cipher context which keys it holds (an address could be reused).
    const uint64_t generation = nextGeneration();

    static uint64_t nextGeneration() {
        static std::atomic<uint64_t> counter{0};
        return counter.fetch_add(1, std::memory_order_relaxed) + 1;
    }

    bool derive(const unsigned char *key) {
        return hmacSHA256(key, kKeySize, reinterpret_cast<const unsigned char *>(kCipherKeyLabel),
                          sizeof kCipherKeyLabel - 1, cipherKey)
            && hmacSHA256(key, kKeySize, reinterpret_cast<const unsigned char *>(kCheckKeyLabel),
                          sizeof kCheckKeyLabel - 1, checkKey);
    }

    ~Keys() {
        OPENSSL_cleanse(cipherKey, sizeof cipherKey);
        OPENSSL_cleanse(checkKey, sizeof checkKey);
    }

    // The key check of a prefix: an HMAC of its first kCheckOffset bytes (magic, version, IV).
    bool check(const unsigned char *prefix, unsigned char out[kCheckSize]) const {
        return hmacSHA256(checkKey, kKeySize, prefix, kCheckOffset, out);
    }
};

enum class PrefixState { valid, notEncrypted, wrongKey, failed };

PrefixState examinePrefix(const Keys &keys, const unsigned char *prefix, size_t length) {
    if (length < kPrefixLength || std::memcmp(prefix, kMagic, sizeof kMagic) != 0) {
        return PrefixState::notEncrypted;
    }
    if (std::memcmp(prefix + kVersionOffset, kVersion, sizeof kVersion) != 0) return PrefixState::notEncrypted;
    unsigned char expected[kCheckSize];
    if (!keys.check(prefix, expected)) return PrefixState::failed;
    return CRYPTO_memcmp(expected, prefix + kCheckOffset, kCheckSize) == 0 ? PrefixState::valid
                                                                          : PrefixState::wrongKey;
}

// Each thread keeps one cipher context with the last keys it used: setting a context up (an
// allocation, the key schedule) cost about 3 us per RocksDB block read, a third of a cached
// random read, where re-setting the IV of a ready one costs next to nothing.
class ThreadCipher {
  public:
    ~ThreadCipher() { EVP_CIPHER_CTX_free(context_); }

    // The context, keyed with `keys` and set at counter block `counter`; nullptr on failure.
    EVP_CIPHER_CTX *prepare(const Keys &keys, EVP_CIPHER *cipher, const unsigned char *counter) {
        if (context_ == nullptr) {
            context_ = EVP_CIPHER_CTX_new();
            if (context_ == nullptr) return nullptr;
        }
        if (generation_ != keys.generation) {
            generation_ = 0;
            if (EVP_EncryptInit_ex2(context_, cipher, keys.cipherKey, counter, nullptr) != 1) return nullptr;
            generation_ = keys.generation;
            return context_;
        }
        return EVP_EncryptInit_ex2(context_, nullptr, nullptr, counter, nullptr) == 1 ? context_ : nullptr;
    }

  private:
    EVP_CIPHER_CTX *context_ = nullptr;
    uint64_t generation_ = 0;
};

thread_local ThreadCipher threadCipher;

// AES-256-CTR over the whole file: the counter block of the 16 bytes at file offset `o` is the
// file's random IV plus o / 16 (a 128-bit big-endian sum), so any byte range can be processed
// alone, as RocksDB's random reads and appends need.
class CTRStream final : public rocksdb::BlockAccessCipherStream {
  public:
    CTRStream(std::shared_ptr<const Keys> keys, EVP_CIPHER *cipher, const unsigned char *iv)
        : keys_(std::move(keys)), cipher_(cipher) {
        std::memcpy(iv_, iv, kIVSize);
    }

    size_t BlockSize() override { return kIVSize; }

    rocksdb::Status Encrypt(uint64_t fileOffset, char *data, size_t dataSize) override {
        return apply(fileOffset, data, dataSize);
    }

    rocksdb::Status Decrypt(uint64_t fileOffset, char *data, size_t dataSize) override {
        return apply(fileOffset, data, dataSize);
    }

  protected:
    void AllocateScratch(std::string &) override {}

    rocksdb::Status EncryptBlock(uint64_t blockIndex, char *data, char *) override {
        return apply(blockIndex * kIVSize, data, kIVSize);
    }

    rocksdb::Status DecryptBlock(uint64_t blockIndex, char *data, char *) override {
        return apply(blockIndex * kIVSize, data, kIVSize);
    }

  private:
    rocksdb::Status apply(uint64_t offset, char *data, size_t size) const {
        if (size == 0) return rocksdb::Status::OK();
        unsigned char counter[kIVSize];
        std::memcpy(counter, iv_, kIVSize);
        uint64_t carry = offset / kIVSize;
        for (size_t i = kIVSize; i-- > 0 && carry != 0;) {
            uint64_t sum = counter[i] + (carry & 0xff);
            counter[i] = static_cast<unsigned char>(sum);
            carry = (carry >> 8) + (sum >> 8);
        }
        EVP_CIPHER_CTX *context = threadCipher.prepare(*keys_, cipher_, counter);
        if (context == nullptr) return rocksdb::Status::IOError("AES-256-CTR: cannot set up the cipher");
        int written = 0;
        // Within the first block, skip the keystream bytes before the offset.
        if (size_t skip = offset % kIVSize; skip != 0) {
            unsigned char scratch[kIVSize] = {};
            if (EVP_EncryptUpdate(context, scratch, &written, scratch, static_cast<int>(skip)) != 1) {
                return rocksdb::Status::IOError("AES-256-CTR: cipher failure");
            }
        }
        auto *bytes = reinterpret_cast<unsigned char *>(data);
        while (size > 0) {
            int chunk = static_cast<int>(size > (1u << 30) ? (1u << 30) : size);
            if (EVP_EncryptUpdate(context, bytes, &written, bytes, chunk) != 1 || written != chunk) {
                return rocksdb::Status::IOError("AES-256-CTR: cipher failure");
            }
            bytes += chunk;
            size -= static_cast<size_t>(chunk);
        }
        return rocksdb::Status::OK();
    }

    std::shared_ptr<const Keys> keys_;
    EVP_CIPHER *cipher_;
    unsigned char iv_[kIVSize];
};

class Provider final : public rocksdb::EncryptionProvider {
  public:
    Provider(std::shared_ptr<const Keys> keys, EVP_CIPHER *cipher) : keys_(std::move(keys)), cipher_(cipher) {}
    ~Provider() override { EVP_CIPHER_free(cipher_); }

    const char *Name() const override { return "CouchbaseLiteAES256CTR"; }

    size_t GetPrefixLength() const override { return kPrefixLength; }

    rocksdb::Status CreateNewPrefix(const std::string &, char *prefix, size_t prefixLength) const override {
        if (prefixLength != kPrefixLength) return rocksdb::Status::InvalidArgument("unexpected prefix length");
        auto *bytes = reinterpret_cast<unsigned char *>(prefix);
        std::memset(bytes, 0, prefixLength);
        std::memcpy(bytes, kMagic, sizeof kMagic);
        std::memcpy(bytes + kVersionOffset, kVersion, sizeof kVersion);
        if (RAND_bytes(bytes + kIVOffset, static_cast<int>(kIVSize)) != 1
            || !keys_->check(bytes, bytes + kCheckOffset)) {
            return rocksdb::Status::IOError("cannot make an encrypted file's prefix (OpenSSL failure)");
        }
        return rocksdb::Status::OK();
    }

    rocksdb::Status AddCipher(const std::string &, const char *, size_t, bool) override {
        return rocksdb::Status::NotSupported("the Couchbase Lite provider has one key, given when made");
    }

    rocksdb::Status CreateCipherStream(const std::string &fname, const rocksdb::EnvOptions &,
                                       rocksdb::Slice &prefix,
                                       std::unique_ptr<rocksdb::BlockAccessCipherStream> *result) override {
        const auto *bytes = reinterpret_cast<const unsigned char *>(prefix.data());
        switch (examinePrefix(*keys_, bytes, prefix.size())) {
        case PrefixState::valid:
            result->reset(new CTRStream(keys_, cipher_, bytes + kIVOffset));
            return rocksdb::Status::OK();
        case PrefixState::notEncrypted:
            return rocksdb::Status::Corruption("file is not encrypted, or its prefix is damaged: " + fname);
        case PrefixState::wrongKey:
            return rocksdb::Status::Corruption("file was encrypted with another key: " + fname);
        case PrefixState::failed:
            break;
        }
        return rocksdb::Status::IOError("cannot check an encrypted file's key (OpenSSL failure): " + fname);
    }

  private:
    std::shared_ptr<const Keys> keys_;
    EVP_CIPHER *cipher_;
};

// RocksDB's diagnostic log (LOG) is written outside the encrypted Env and can quote keys.
class DiscardingLogger final : public rocksdb::Logger {
  public:
    using rocksdb::Logger::Logv;
    void Logv(const char *, va_list) override {}
};

char *copyMessage(const char *message) {
    size_t length = std::strlen(message) + 1;
    auto *copy = static_cast<char *>(std::malloc(length));
    if (copy != nullptr) std::memcpy(copy, message, length);
    return copy;
}

} // namespace

struct cblrdbenc_env {
    rocksdb_env_t env;
    rocksdb_logger_t logger;
};

extern "C" cblrdbenc_env *cblrdbenc_env_create(const unsigned char *key, size_t keyLength, char **error) {
    auto fail = [error](const char *message) -> cblrdbenc_env * {
        if (error != nullptr) *error = copyMessage(message);
        return nullptr;
    };
    if (key == nullptr || keyLength != kKeySize) return fail("the encryption key is not 32 bytes");
    auto keys = std::make_shared<Keys>();
    if (!keys->derive(key)) return fail("cannot derive the file keys (OpenSSL failure)");
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(nullptr, "AES-256-CTR", nullptr);
    if (cipher == nullptr) return fail("OpenSSL has no AES-256-CTR cipher");
    try {
        auto provider = std::make_shared<Provider>(std::move(keys), cipher);
        rocksdb::Env *env = rocksdb::NewEncryptedEnv(rocksdb::Env::Default(), provider);
        if (env == nullptr) return fail("RocksDB could not make the encrypted environment");
        auto *result = new cblrdbenc_env{{env, false}, {std::make_shared<DiscardingLogger>()}};
        return result;
    } catch (const std::bad_alloc &) {
        return fail("out of memory making the encrypted environment");
    }
}

extern "C" rocksdb_env_t *cblrdbenc_env_rocksdb_env(cblrdbenc_env *env) { return &env->env; }

extern "C" rocksdb_logger_t *cblrdbenc_env_rocksdb_logger(cblrdbenc_env *env) { return &env->logger; }

extern "C" void cblrdbenc_env_destroy(cblrdbenc_env *env) {
    if (env == nullptr) return;
    delete env->env.rep;
    delete env;
}

extern "C" int cblrdbenc_check_file(const char *path, const unsigned char *key, size_t keyLength) {
    if (key == nullptr || keyLength != kKeySize) {
        errno = EINVAL;
        return cblrdbenc_file_unreadable;
    }
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return cblrdbenc_file_unreadable;
    unsigned char prefix[kPrefixLength];
    size_t filled = 0;
    while (filled < kPrefixLength) {
        ssize_t count = read(descriptor, prefix + filled, kPrefixLength - filled);
        if (count == 0) break;
        if (count < 0) {
            if (errno == EINTR) continue;
            int saved = errno;
            close(descriptor);
            errno = saved;
            return cblrdbenc_file_unreadable;
        }
        filled += static_cast<size_t>(count);
    }
    close(descriptor);
    Keys keys;
    if (!keys.derive(key)) return cblrdbenc_file_unreadable;
    switch (examinePrefix(keys, prefix, filled)) {
    case PrefixState::valid: return cblrdbenc_file_right_key;
    case PrefixState::notEncrypted: return cblrdbenc_file_not_encrypted;
    case PrefixState::wrongKey: return cblrdbenc_file_wrong_key;
    case PrefixState::failed: break;
    }
    return cblrdbenc_file_unreadable;
}
