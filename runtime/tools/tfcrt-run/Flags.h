//===- Flags.h - command-line flags of the runtime tools --------*- C++ -*-===//
//
// A small flag parser with no dependencies, so tfcrt-run builds with the
// runtime alone, and tfc-run declares its compile flags in the same list as
// the run flags it shares with tfcrt-run (one definition of each flag).
// Accepts -flag and --flag, "--flag value" and "--flag=value"; booleans take
// no value (or =true/=false). --help prints the usage and every flag.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_TOOLS_TFCRT_RUN_FLAGS_H
#define TFC_RUNTIME_TOOLS_TFCRT_RUN_FLAGS_H

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tfc::tools {

class FlagParser {
public:
  /// `tool` prefixes error lines ("tfcrt-run: ..."); `usage` is printed
  /// above the flag list by --help.
  FlagParser(std::string tool, std::string usage);

  void addString(const std::string &name, std::string *value,
                 const std::string &help);
  void addUnsigned(const std::string &name, unsigned *value,
                   const std::string &help);
  void addInt(const std::string &name, int64_t *value, const std::string &help);
  void addBool(const std::string &name, bool *value, const std::string &help);
  /// The one positional argument (an error when there are more).
  void setPositional(std::string *value, const std::string &metavar);

  /// Parses argv. Returns true to go on; false to stop with `exitCode` (0
  /// after --help, 1 after an error, printed as one line on stderr).
  bool parse(int argc, char **argv, int &exitCode);
  /// True when flag `name` was given (also as "--name=" with no value).
  bool seen(const std::string &name) const { return seen_.count(name) != 0; }

private:
  enum class Kind { String, Unsigned, Int, Bool };
  struct Flag {
    std::string name, help;
    Kind kind;
    void *value;
  };
  bool set(const Flag &flag, const std::string &text);
  void printHelp() const;

  std::string tool_, usage_, metavar_;
  std::string *positional_ = nullptr;
  std::vector<Flag> flags_;
  std::set<std::string> seen_;
};

} // namespace tfc::tools

#endif // TFC_RUNTIME_TOOLS_TFCRT_RUN_FLAGS_H
