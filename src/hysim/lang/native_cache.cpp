#include "hysim/lang/native_cache.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace hysim::lang::native_cache {

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string system_reason(int error) { return std::strerror(error); }

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Whether a folder above the cache lets nobody but its owner, root or the effective user
// replace what it holds: owned by root or the effective user, and writable by nobody else
// unless sticky (in a sticky folder such as /tmp, only an entry's owner may rename or remove
// it).
std::string why_not_safe_above(const struct stat& s, const std::string& path) {
  if (!S_ISDIR(s.st_mode)) return "'" + path + "' is not a directory";
  if (s.st_uid != 0 && s.st_uid != geteuid()) {
    return "'" + path + "' above the cache is owned by uid " + std::to_string(s.st_uid) + ", neither root nor you (uid " +
           std::to_string(geteuid()) + ")";
  }
  if ((s.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (s.st_mode & S_ISVTX) == 0) {
    return "'" + path + "' above the cache is writable by its group or others and not sticky (mode " +
           octal_mode(s.st_mode) + ")";
  }
  return {};
}

// Creates the missing folders of `dir` from the top, each with mode 0700.
void create_missing(const std::filesystem::path& dir) {
  std::filesystem::path partial;
  for (const auto& part : dir) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      throw Error("cannot create the model cache folder '" + partial.string() + "': " + system_reason(errno));
    }
  }
}

}  // namespace

std::string default_dir() {
  const std::string xdg = environment("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg.front() == '/') return xdg + "/hysim";  // relative: ignored (XDG)
  std::string home = environment("HOME");
  if (home.empty() || home.front() != '/') {
    // cron and systemd may leave HOME unset: the password database knows the home folder.
    std::vector<char> buffer(16384);
    struct passwd entry {};
    struct passwd* found = nullptr;
    if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
        found->pw_dir != nullptr && found->pw_dir[0] == '/') {
      home = found->pw_dir;
    } else {
      return {};
    }
  }
  return home + "/.cache/hysim";
}

Descriptor::~Descriptor() {
  if (fd_ >= 0) ::close(fd_);
}

Descriptor& Descriptor::reset(int fd) noexcept {
  if (fd_ >= 0 && fd_ != fd) ::close(fd_);
  fd_ = fd;
  return *this;
}

std::string why_not_private(int directory_fd, const std::string& path) {
  struct stat s {};
  if (::fstat(directory_fd, &s) != 0) return "cannot inspect '" + path + "': " + system_reason(errno);
  if (!S_ISDIR(s.st_mode)) return "'" + path + "' is not a directory";
  if (s.st_uid != geteuid()) {
    return "'" + path + "' is owned by uid " + std::to_string(s.st_uid) + ", not by you (uid " +
           std::to_string(geteuid()) + ")";
  }
  if ((s.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "'" + path + "' is writable by its group or others (mode " + octal_mode(s.st_mode) + ")";
  }
  return {};
}

std::string open_private_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path absolute = fs::absolute(dir, error).lexically_normal();
  if (error) throw Error("cannot use the model cache folder '" + dir + "': " + error.message());
  create_missing(absolute);
  // The folders above, from the root down, through their real paths (a link is judged by
  // what it points to, and a link that an attacker owns points into folders the checks see).
  const fs::path real = fs::canonical(absolute, error);
  if (error) throw Error("cannot use the model cache folder '" + dir + "': " + error.message());
  fs::path above;
  for (auto part = real.begin(); part != real.end(); ++part) {
    if (std::next(part) == real.end()) break;
    above /= *part;
    struct stat s {};
    if (::stat(above.c_str(), &s) != 0) {
      throw Error("cannot inspect '" + above.string() + "' above the model cache: " + system_reason(errno));
    }
    const std::string why = why_not_safe_above(s, above.string());
    if (!why.empty()) throw CacheRefused("the model cache folder '" + dir + "' is not private: " + why);
  }
  Descriptor fd(::open(real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) throw Error("cannot open the model cache folder '" + dir + "': " + system_reason(errno));
  const std::string why = why_not_private(fd.get(), dir);
  if (!why.empty()) throw CacheRefused("the model cache folder is not private: " + why);
  return real.string();
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1 || length != 32) {
    throw Error("SHA-256 failed (OpenSSL's libcrypto)");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

std::string record_text(std::string_view key, std::string_view object_digest) {
  return "hysim native model\nkey " + std::string(key) + "\nsha256 " + std::string(object_digest) + "\n";
}

bool record_matches(std::string_view record, std::string_view key, std::string_view object) {
  // A cheap test first: the record has the one length a valid record has.
  if (record.size() != record_text(key, std::string(64, '0')).size()) return false;
  return record == record_text(key, sha256_hex(object));
}

std::string read_private_file(int fd, std::size_t limit, const std::string& what) {
  struct stat s {};
  if (::fstat(fd, &s) != 0) throw Error("cannot inspect " + what + ": " + system_reason(errno));
  if (!S_ISREG(s.st_mode)) throw Error(what + " is not a regular file");
  if (s.st_uid != geteuid()) throw Error(what + " is owned by uid " + std::to_string(s.st_uid) + ", not by you");
  if ((s.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw Error(what + " is writable by its group or others (mode " + octal_mode(s.st_mode) + ")");
  }
  if (static_cast<std::uintmax_t>(s.st_size) > limit) {
    throw Error(what + " is larger than " + std::to_string(limit) + " bytes");
  }
  std::string bytes;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(bytes.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read " + what + ": " + system_reason(errno));
    if (n == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
    if (bytes.size() > limit) throw Error(what + " is larger than " + std::to_string(limit) + " bytes");
  }
  return bytes;
}

Descriptor open_verified(const std::string& object, const std::string& record, const std::string& key,
                         std::size_t limit) {
  Descriptor fd(::open(object.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  const Descriptor record_fd(::open(record.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd || !record_fd) return {};
  try {
    const std::string bytes = read_private_file(fd.get(), limit, "the cached model '" + object + "'");
    const std::string text = read_private_file(record_fd.get(), 4096, "the record '" + record + "'");
    if (!record_matches(text, key, bytes)) return {};
  } catch (const Error&) {  // not the user's, not a regular file, too large, unreadable
    return {};
  }
  return fd;
}

void write_new_file(const std::string& path, std::string_view text) {
  Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) throw Error("cannot create '" + path + "': " + system_reason(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot write '" + path + "': " + system_reason(errno));
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd.release()) != 0) throw Error("cannot write '" + path + "': " + system_reason(errno));
}

}  // namespace hysim::lang::native_cache
