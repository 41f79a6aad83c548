// Files as hostile input (support/files.h): reads that refuse what is not a
// bounded regular file, writes that are atomic and never follow a symlink,
// logs that are never opened through one, and the audit log's torn-line repair.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "allot/audit.h"
#include "allot/files.h"
#include "temp_folder.h"

namespace fs = std::filesystem;
using allot::support::FileProblem;
using allot::support::open_append;
using allot::support::read_file;
using allot::support::write_file_atomic;

namespace {

std::string contents_of(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Every name in `folder`, to see that no temporary file is left behind.
std::vector<std::string> names_in(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("read_file reads regular files and refuses everything else", "[support][files]") {
  TempFolder folder("allot-files-test");
  put(folder.file("policy.allot"), "policy p {}\n");
  auto read = read_file(folder.file("policy.allot"), 100);
  REQUIRE(read);
  CHECK(*read == "policy p {}\n");

  auto missing = read_file(folder.file("nope"), 100);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().problem == FileProblem::missing);
  CHECK(missing.error().reason == "No such file or directory");

  auto directory = read_file(folder.file(""), 100);
  REQUIRE_FALSE(directory);
  CHECK(directory.error().problem == FileProblem::not_regular);
  CHECK(directory.error().reason == "is a folder, not a file");

  // Neither blocks: a FIFO with no writer, a device that never ends.
  REQUIRE(::mkfifo(folder.file("fifo").c_str(), 0600) == 0);
  auto fifo = read_file(folder.file("fifo"), 100);
  REQUIRE_FALSE(fifo);
  CHECK(fifo.error().reason == "is a FIFO, not a regular file");
  auto zero = read_file("/dev/zero", 100);
  REQUIRE_FALSE(zero);
  CHECK(zero.error().reason == "is a device, not a regular file");

  put(folder.file("big"), std::string(101, 'x'));
  auto big = read_file(folder.file("big"), 100);
  REQUIRE_FALSE(big);
  CHECK(big.error().problem == FileProblem::too_large);
  CHECK(big.error().bytes == 101);
  CHECK(big.error().reason == "is 101 bytes, more than the 100 allowed");
  CHECK(read_file(folder.file("big"), 101));
}

TEST_CASE("write_file_atomic replaces the file, keeps its mode and leaves nothing behind", "[support][files]") {
  TempFolder folder("allot-files-test");
  const std::string path = folder.file("state.toml");
  REQUIRE_FALSE(write_file_atomic(path, "first\n"));
  CHECK(contents_of(path) == "first\n");
  ::chmod(path.c_str(), 0600);
  REQUIRE_FALSE(write_file_atomic(path, "second\n"));
  CHECK(contents_of(path) == "second\n");
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  CHECK(names_in(folder.file("")) == std::vector<std::string>{"state.toml"});
}

TEST_CASE("write_file_atomic replaces a symlink instead of writing through it", "[support][files]") {
  TempFolder folder("allot-files-test");
  const std::string victim = folder.file("victim");
  put(victim, "precious\n");
  const std::string path = folder.file("report.json");
  fs::create_symlink(victim, path);
  REQUIRE_FALSE(write_file_atomic(path, "{}\n"));
  CHECK(contents_of(victim) == "precious\n");
  CHECK_FALSE(fs::is_symlink(path));
  CHECK(contents_of(path) == "{}\n");
}

TEST_CASE("a failed write leaves the old file and says why", "[support][files]") {
  TempFolder folder("allot-files-test");
  auto missing_folder = write_file_atomic(folder.file("no/such/folder/state.toml"), "x");
  REQUIRE(missing_folder);
  CHECK_THAT(*missing_folder, Catch::StartsWith("cannot write `"));
  CHECK_THAT(*missing_folder, Catch::EndsWith("No such file or directory"));
  fs::create_directories(folder.file("sub"));
  auto onto_folder = write_file_atomic(folder.file("sub"), "x");
  REQUIRE(onto_folder);
  CHECK_THAT(*onto_folder, Catch::EndsWith("it is a folder, not a file"));
  // A device or FIFO is never renamed over (as root, `--output /dev/null` once
  // replaced the machine's /dev/null with a file). Tested on a FIFO of our own.
  REQUIRE(::mkfifo(folder.file("fifo").c_str(), 0600) == 0);
  auto onto_fifo = write_file_atomic(folder.file("fifo"), "x");
  REQUIRE(onto_fifo);
  CHECK_THAT(*onto_fifo, Catch::EndsWith("it is a FIFO, not a regular file"));
  fs::create_symlink(folder.file("fifo"), folder.file("to-fifo"));
  auto through_link = write_file_atomic(folder.file("to-fifo"), "x");
  REQUIRE(through_link);
  CHECK_THAT(*through_link, Catch::EndsWith("it is a symlink to something that is a FIFO, not a regular file"));
  struct stat info {};
  REQUIRE(::lstat(folder.file("fifo").c_str(), &info) == 0);
  CHECK(S_ISFIFO(info.st_mode));
  REQUIRE(::lstat(folder.file("to-fifo").c_str(), &info) == 0);
  CHECK(S_ISLNK(info.st_mode));
  // A dangling symlink is replaced, as one to a regular file is.
  fs::create_symlink(folder.file("nowhere"), folder.file("dangling"));
  CHECK_FALSE(write_file_atomic(folder.file("dangling"), "x"));
  CHECK_FALSE(fs::exists(folder.file("nowhere")));
  if (::geteuid() != 0) {  // root writes into read-only folders
    const std::string path = folder.file("locked/state.toml");
    fs::create_directories(folder.file("locked"));
    put(path, "old\n");
    ::chmod(folder.file("locked").c_str(), 0500);
    auto refused = write_file_atomic(path, "new\n");
    ::chmod(folder.file("locked").c_str(), 0700);
    REQUIRE(refused);
    CHECK_THAT(*refused, Catch::EndsWith("Permission denied"));
    CHECK(contents_of(path) == "old\n");
  }
}

TEST_CASE("open_append never opens a log through a symlink or onto a device", "[support][files]") {
  TempFolder folder("allot-files-test");
  const std::string victim = folder.file("victim");
  put(victim, "precious\n");
  fs::create_symlink(victim, folder.file("audit.log"));
  auto through_link = open_append(folder.file("audit.log"));
  REQUIRE_FALSE(through_link);
  CHECK_THAT(through_link.error(), Catch::EndsWith("it is a symlink"));
  auto device = open_append("/dev/full");
  REQUIRE_FALSE(device);
  CHECK_THAT(device.error(), Catch::EndsWith("it is a device, not a regular file"));
  auto log = open_append(folder.file("new.log"));
  REQUIRE(log);
  CHECK(::write(*log, "a\n", 2) == 2);
  ::close(*log);
  CHECK(contents_of(folder.file("new.log")) == "a\n");
  CHECK(contents_of(victim) == "precious\n");
}

TEST_CASE("the audit log cuts a torn last line on open, so the next record stands alone", "[support][audit]") {
  TempFolder folder("allot-files-test");
  const std::string path = folder.file("audit.jsonl");
  const std::string start = "{\"time\":\"2026-12-02T09:00:00Z\",\"kind\":\"start\"}\n";
  const std::string skip = "{\"time\":\"2026-12-02T09:05:00Z\",\"kind\":\"skip\"}\n";
  put(path, start + "{\"time\":\"2026-12-02T09:0");
  {
    auto log = allot::runtime::AuditLog::open(path);
    REQUIRE(log);
    REQUIRE_FALSE(log->append_lines(skip));
  }
  CHECK(contents_of(path) == start + skip);
  put(path, "{\"ti");  // the only record, cut after four bytes
  REQUIRE(allot::runtime::AuditLog::open(path));
  CHECK(contents_of(path).empty());
  put(path, start);
  REQUIRE(allot::runtime::AuditLog::open(path));
  CHECK(contents_of(path) == start);
}

TEST_CASE("the audit log refuses a file that is not one and leaves it as it was", "[support][audit]") {
  TempFolder folder("allot-files-test");
  const std::string path = folder.file("notes.txt");
  for (const std::string text : {"no newline at all", "whole\n", "{\"kind\":\"start\"}\n{\"kind\":\"pre"}) {
    INFO(text);
    put(path, text);
    const auto log = allot::runtime::AuditLog::open(path);
    REQUIRE_FALSE(log);
    CHECK_THAT(log.error(), Catch::Contains("is not an Allot audit log"));
    CHECK(contents_of(path) == text);
  }
}
