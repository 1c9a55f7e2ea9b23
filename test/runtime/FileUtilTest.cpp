//===- FileUtilTest.cpp - readFile / writeFileAtomic ----------------------===//

#include "runtime/src/core/FileUtil.h"
#include "test/runtime/TestUtil.h"

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace tfc::rt;
using tfc::rt::test::TempDir;

namespace {
Status write(const std::string &path, const std::string &text) {
  return writeFileAtomic(path, text.data(), text.size());
}

std::string contents(const std::string &path) {
  std::string text;
  EXPECT_TRUE(readFile(path, text).isOk()) << path;
  return text;
}

/// The names in `dir`, "." and ".." aside.
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}
} // namespace

// A regular file is replaced, keeping its permissions; no temporary is left.
TEST(WriteFileAtomic, ReplacesRegularFile) {
  TempDir dir;
  std::string path = dir.path() + "/out.bin";
  ASSERT_TRUE(write(path, "old contents").isOk());
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(write(path, "new").isOk());
  EXPECT_EQ(contents(path), "new");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.bin"});
}

// A symbolic link stays a link: its target gets the new contents (the
// writer used to rename a new file over the link itself).
TEST(WriteFileAtomic, WritesThroughSymlink) {
  TempDir dir;
  std::string target = dir.path() + "/target.bin";
  std::string link = dir.path() + "/link.bin";
  ASSERT_TRUE(write(target, "old").isOk());
  ASSERT_EQ(::symlink("target.bin", link.c_str()), 0);
  ASSERT_TRUE(write(link, "new").isOk());
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced";
  EXPECT_EQ(contents(target), "new");
  EXPECT_EQ(entries(dir.path()),
            (std::vector<std::string>{"link.bin", "target.bin"}));
}

// A FIFO (as /dev/null or /dev/stdout: not a regular file) is written in
// place and stays a FIFO; the reader gets the bytes.
TEST(WriteFileAtomic, WritesFifoInPlace) {
  TempDir dir;
  std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened for reading first (non-blocking), so the writer's open returns.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write(fifo, "through the pipe").isOk());
  char buffer[64] = {};
  ssize_t n = ::read(reader, buffer, sizeof(buffer));
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? size_t(n) : 0), "through the pipe");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"pipe"});
}

// A directory is an error and stays as it was.
TEST(WriteFileAtomic, RefusesDirectory) {
  TempDir dir;
  std::string sub = dir.path() + "/sub";
  ASSERT_EQ(::mkdir(sub.c_str(), 0700), 0);
  Status s = write(sub, "x");
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("is a directory"), std::string::npos)
      << s.message();
  struct stat st;
  ASSERT_EQ(::lstat(sub.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}
