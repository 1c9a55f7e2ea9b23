//===- Flags.cpp - command-line flags of the runtime tools ----------------===//

#include "runtime/tools/tfcrt-run/Flags.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace tfc::tools {

FlagParser::FlagParser(std::string tool, std::string usage)
    : tool_(std::move(tool)), usage_(std::move(usage)) {}

void FlagParser::addString(const std::string &name, std::string *value,
                           const std::string &help) {
  flags_.push_back({name, help, Kind::String, value});
}
void FlagParser::addUnsigned(const std::string &name, unsigned *value,
                             const std::string &help) {
  flags_.push_back({name, help, Kind::Unsigned, value});
}
void FlagParser::addInt(const std::string &name, int64_t *value,
                        const std::string &help) {
  flags_.push_back({name, help, Kind::Int, value});
}
void FlagParser::addBool(const std::string &name, bool *value,
                         const std::string &help) {
  flags_.push_back({name, help, Kind::Bool, value});
}
void FlagParser::setPositional(std::string *value, const std::string &metavar) {
  positional_ = value;
  metavar_ = metavar;
}

bool FlagParser::set(const Flag &flag, const std::string &text) {
  auto bad = [&](const char *what) {
    std::fprintf(stderr, "%s: --%s: '%s' is not %s\n", tool_.c_str(),
                 flag.name.c_str(), text.c_str(), what);
    return false;
  };
  switch (flag.kind) {
  case Kind::String:
    *static_cast<std::string *>(flag.value) = text;
    return true;
  case Kind::Bool:
    if (text == "true" || text == "1")
      *static_cast<bool *>(flag.value) = true;
    else if (text == "false" || text == "0")
      *static_cast<bool *>(flag.value) = false;
    else
      return bad("true or false");
    return true;
  case Kind::Unsigned:
  case Kind::Int: {
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end || errno == ERANGE)
      return bad("an integer");
    if (flag.kind == Kind::Unsigned) {
      if (v < 0 || v > 0xffffffffLL)
        return bad("a non-negative 32-bit integer");
      *static_cast<unsigned *>(flag.value) = unsigned(v);
    } else {
      *static_cast<int64_t *>(flag.value) = int64_t(v);
    }
    return true;
  }
  }
  return false;
}

void FlagParser::printHelp() const {
  // Flag names in a column of 26, help text wrapped at 80 columns beside it.
  const size_t column = 27, width = 80;
  auto print = [&](std::string head, const std::string &help) {
    std::string line = head + std::string(head.size() < column ? column - head.size() : 1, ' ');
    size_t start = 0;
    while (start < help.size()) {
      size_t room = width - column, end = help.size();
      if (end - start > room) {
        end = help.rfind(' ', start + room);
        if (end == std::string::npos || end <= start)
          end = start + room;
      }
      std::printf("%s%s\n", line.c_str(), help.substr(start, end - start).c_str());
      line.assign(column, ' ');
      start = end < help.size() && help[end] == ' ' ? end + 1 : end;
    }
  };
  std::printf("%s\nOptions:\n", usage_.c_str());
  for (const Flag &f : flags_)
    print("  --" + f.name +
              (f.kind == Kind::Bool     ? ""
               : f.kind == Kind::String ? "=VALUE"
                                        : "=N"),
          f.help);
  print("  --help", "Print this help");
}

bool FlagParser::parse(int argc, char **argv, int &exitCode) {
  exitCode = 1;
  bool havePositional = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (!positional_ || havePositional) {
        std::fprintf(stderr, "%s: unexpected argument '%s'\n", tool_.c_str(),
                     arg.c_str());
        return false;
      }
      *positional_ = arg;
      havePositional = true;
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string name = body, value;
    bool hasValue = false;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      hasValue = true;
    }
    if (name == "help" || name == "h") {
      printHelp();
      exitCode = 0;
      return false;
    }
    const Flag *flag = nullptr;
    for (const Flag &f : flags_)
      if (f.name == name)
        flag = &f;
    if (!flag) {
      std::fprintf(stderr, "%s: unknown flag '%s' (see --help)\n",
                   tool_.c_str(), arg.c_str());
      return false;
    }
    if (!hasValue && flag->kind != Kind::Bool) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: --%s needs a value\n", tool_.c_str(),
                     name.c_str());
        return false;
      }
      value = argv[++i];
      hasValue = true;
    }
    if (!set(*flag, hasValue ? value : "true"))
      return false;
    seen_.insert(name);
  }
  exitCode = 0;
  return true;
}

} // namespace tfc::tools
