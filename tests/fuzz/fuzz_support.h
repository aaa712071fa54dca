// What the harnesses share: a failed check ends the process with a message (libFuzzer counts it as a
// crash and saves the input; the corpus replay test fails), and a scratch directory per process.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "common/message_text.h"

namespace pipegrid::fuzz {

/// The input as text.
inline std::string_view text_of(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A broken invariant: a bug, whatever the input was.
[[noreturn]] inline void fail(const std::string& what) {
  // Escaped: a NUL in the input once cut this line before what failed.
  std::fprintf(stderr, "fuzz check failed: %s\n", one_line(what).c_str());
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

/// An input refused as it should be. With PIPEGRID_FUZZ_VERBOSE set, says why (to see which seeds
/// get past which rule); otherwise silent, as fuzzing wants.
inline void rejected(std::string_view why) {
  static const bool verbose = std::getenv("PIPEGRID_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "rejected: %s\n", one_line(why).c_str());
}

/// An input accepted (PIPEGRID_FUZZ_VERBOSE only).
inline void accepted(std::string_view what) {
  static const bool verbose = std::getenv("PIPEGRID_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "accepted: %s\n", one_line(what).c_str());
}

/// A directory of this process's own (mkdtemp once), removed when the process exits normally.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const std::filesystem::path tmp = std::filesystem::temp_directory_path() / "pipegrid-fuzz-XXXXXX";
    std::string name = tmp.string();
    if (!mkdtemp(name.data())) fail("mkdtemp " + name);
    static const std::string removed = name;
    std::atexit([] {
      std::error_code error;
      std::filesystem::remove_all(removed, error);
    });
    return name;
  }();
  return dir;
}

/// Writes `text` to NAME in the scratch directory and returns its path.
inline std::string write_scratch(const std::string& name, std::string_view text) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) fail("cannot write " + path);
  return path;
}

}  // namespace pipegrid::fuzz
