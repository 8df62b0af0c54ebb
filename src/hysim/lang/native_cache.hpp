// The cache of compiled model files, and why no other local user can plant code in it
// (docs/security.md has the threat model).
//
// Where. HYSIM_CACHE_DIR; else $XDG_CACHE_HOME/hysim (an absolute XDG_CACHE_HOME only, as the
// XDG Base Directory Specification requires); else $HOME/.cache/hysim; else the home folder
// of the effective user in the password database. Never a fixed name in a shared folder such
// as /tmp. With no home at all there is no cache: the model is compiled in a private temporary
// folder (mkdtemp, mode 0700), loaded, and the folder removed.
//
// Whose. The folder is created with mode 0700, and used only if it is a directory owned by the
// effective user and writable by nobody else, below folders that are each owned by that user or
// root and writable by nobody else unless sticky (/tmp). Then no other user can create, replace,
// rename or remove a file in it, and every name in it is the owner's.
//
// What is loaded. A compiled object model-KEY.so is loaded only if it is a private regular file
// and the SHA-256 of its bytes is the one recorded in model-KEY.sha256 when it was built. A truncated,
// corrupt or foreign object (one written by another program, or left by a build that died) does
// not match and is rebuilt, never loaded. KEY is the SHA-256 of the compiler's path, its flags
// and the generated C, so two models never share an object.
//
// Building. In a private folder made by mkdtemp inside the cache; the C file and the compiler's
// log are created there with O_EXCL | O_NOFOLLOW; the object and its record are renamed into
// place (the record last), so a concurrent run sees either nothing or a whole, checked pair.
#pragma once

#include <string>
#include <string_view>

#include "hysim/core/errors.hpp"

namespace hysim::lang::native_cache {

// The per-user cache folder named by the environment and the password database, as above;
// empty when none is known (no cache).
std::string default_dir();

// An open file descriptor, closed on destruction.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor();
  Descriptor(Descriptor&& other) noexcept : fd_(other.release()) {}
  // Closes the descriptor held (if any) and takes `other`'s.
  Descriptor& operator=(Descriptor&& other) noexcept { return reset(other.release()); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held (if any) and holds `fd`.
  Descriptor& reset(int fd) noexcept;

 private:
  int fd_ = -1;
};

// Why a folder is not private to the effective user ("owned by uid 1000, not by you (uid 0)",
// "writable by its group or others (mode 0777)"), or empty when it is. `path` names it in the
// message.
std::string why_not_private(int directory_fd, const std::string& path);

// Creates `dir` and any missing folders above it (mode 0700) and returns its real (absolute,
// canonical) path, after checking that it and every folder above it are safe as described in
// this header. Throws CacheRefused when
// the folder belongs to someone else or others may write in it (or above it), and Error with
// the system's reason (read-only file system, permission denied, no space) when it cannot be
// created or opened. `dir` is made absolute first.
std::string open_private_dir(const std::string& dir);

// The cache folder is someone else's, or others may write in it (or above it): never used.
class CacheRefused : public Error {
 public:
  using Error::Error;
};

// SHA-256 (FIPS 180-4, through OpenSSL's libcrypto) of `bytes`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

// The record stored beside an object: "hysim native model\nkey KEY\nsha256 DIGEST\n".
std::string record_text(std::string_view key, std::string_view object_digest);

// Whether `object` is the object the record describes for `key`: the record is exactly
// record_text(key, sha256_hex(object)). Anything else (another key, a truncated record or
// object, extra bytes, another format) is a mismatch.
bool record_matches(std::string_view record, std::string_view key, std::string_view object);

// The object at `object` opened (O_NOFOLLOW) for loading, if it is a regular file of the
// effective user's that nobody else may write, at most `limit` bytes, and `record` (the same
// checks) is record_text(key, SHA-256 of its bytes); else a closed descriptor, and the caller
// rebuilds it. Never throws for what it finds in the files.
Descriptor open_verified(const std::string& object, const std::string& record, const std::string& key,
                         std::size_t limit);

// Reads a whole regular file opened as `fd`, at most `limit` bytes; throws Error (with `what`
// in the message) when it is longer, unreadable, or not a regular file owned by the effective
// user and writable by nobody else.
std::string read_private_file(int fd, std::size_t limit, const std::string& what);

// Writes `text` to `path`, a new file (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600); throws Error
// with the system's reason (no space, read-only, exists) and the path.
void write_new_file(const std::string& path, std::string_view text);

}  // namespace hysim::lang::native_cache
