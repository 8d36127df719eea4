// Info objects (MPI-3.1 9): ordered lists of (key, value) strings that carry hints. The layer
// itself uses no hint, so these are plain containers with the standard's length limits.
//
// MPI_INFO_ENV describes how the job was started: "command" and "argv" (this process's command
// line) and "maxprocs" (the job's size), read on first use after MPI_Init.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "api/runtime.hpp"
#include "mpi/call.hpp"
#include "mpi/info.hpp"
#include "mpi/pool.hpp"

struct rmpl_mpi_info rmpl_mpi_info_env {
  rmpl::mpi::magic::info, true, {}
};

namespace rmpl::mpi {
namespace {

pool<rmpl_mpi_info>& infos() {
  static pool<rmpl_mpi_info> p;
  return p;
}

/// What MPI_INFO_ENV holds (MPI-4.1 11.2.4) for the command line `words` (the command first):
/// "command", "argv" (the arguments joined by blanks) and, once MPI runs, "maxprocs" (before
/// MPI_Init the job's size is not known, and the standard lets any key be left out).
void environment_entries(const std::vector<std::string>& words,
                         std::vector<std::pair<std::string, std::string>>& entries) {
  if (!words.empty() && !words[0].empty()) entries.emplace_back("command", words[0]);
  std::string arguments;
  for (std::size_t i = 1; i < words.size(); ++i) {
    arguments += (i > 1 ? " " : "") + words[i];
  }
  if (!arguments.empty()) entries.emplace_back("argv", arguments);
  if (api::initialized()) entries.emplace_back("maxprocs", std::to_string(api::kernel().size()));
}

/// Fills MPI_INFO_ENV the first time it is read while MPI runs, from this process's command line.
void fill_environment() {
  static bool filled = false;
  if (filled || !api::initialized()) return;
  filled = true;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string line{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // The arguments, each ended by a null character: the first is the command.
  std::vector<std::string> words;
  for (std::size_t start = 0, end; start < line.size(); start = end + 1) {
    end = std::min(line.find('\0', start), line.size());
    words.push_back(line.substr(start, end - start));
  }
  environment_entries(words, rmpl_mpi_info_env.entries);
}

/// A live Info object; MPI_INFO_ENV is filled before it is read.
rmpl_mpi_info& readable(MPI_Info i) {
  rmpl_mpi_info& checked = info(i);
  if (i == MPI_INFO_ENV) fill_environment();
  return checked;
}

rmpl_mpi_info& writable(MPI_Info i) {
  rmpl_mpi_info& checked = info(i);
  if (checked.predefined) fail(MPI_ERR_INFO, "MPI_INFO_ENV cannot be changed");
  return checked;
}

/// A key within the standard's limits.
std::string checked_key(const char* key) {
  if (key == nullptr) fail(MPI_ERR_INFO_KEY, "the key is a null pointer");
  const std::size_t length = std::strlen(key);
  if (length == 0) fail(MPI_ERR_INFO_KEY, "the key is empty");
  if (length > MPI_MAX_INFO_KEY) {
    fail(MPI_ERR_INFO_KEY, "the key is {} characters long; MPI_MAX_INFO_KEY is {}", length,
         MPI_MAX_INFO_KEY);
  }
  return std::string(key, length);
}

using entry_list = std::vector<std::pair<std::string, std::string>>;

entry_list::iterator find(entry_list& entries, const std::string& key) {
  return std::find_if(entries.begin(), entries.end(),
                      [&](const auto& entry) { return entry.first == key; });
}

}  // namespace

MPI_Info make_info() {
  return infos().make();
}

void optional_info(MPI_Info i) {
  if (i != MPI_INFO_NULL) info(i);
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Info_create(MPI_Info* info) {
  if (info == nullptr) fail(MPI_ERR_ARG, "the info handle pointer is null");
  *info = make_info();
  return MPI_SUCCESS;
}

int Info_create_env(int argc, char* argv[], MPI_Info* info) {
  if (info == nullptr) fail(MPI_ERR_ARG, "the info handle pointer is null");
  if (argc < 0) fail(MPI_ERR_ARG, "argc {} is negative", argc);
  if (argc > 0 && argv == nullptr) fail(MPI_ERR_ARG, "argv is null with argc {}", argc);
  // What MPI_INFO_ENV holds, from the arguments given.
  std::vector<std::string> words;
  for (int i = 0; i < argc && argv[i] != nullptr; ++i) words.emplace_back(argv[i]);
  MPI_Info made = make_info();
  environment_entries(words, made->entries);
  *info = made;
  return MPI_SUCCESS;
}

int Info_dup(MPI_Info info, MPI_Info* newinfo) {
  const rmpl_mpi_info& from = readable(info);
  if (newinfo == nullptr) fail(MPI_ERR_ARG, "the new info handle pointer is null");
  MPI_Info copy = make_info();
  copy->entries = from.entries;
  *newinfo = copy;
  return MPI_SUCCESS;
}

int Info_free(MPI_Info* info) {
  if (info == nullptr) fail(MPI_ERR_ARG, "the info handle pointer is null");
  infos().recycle(&writable(*info));
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int Info_set(MPI_Info info, const char* key, const char* value) {
  rmpl_mpi_info& target = writable(info);
  std::string k = checked_key(key);
  if (value == nullptr) fail(MPI_ERR_INFO_VALUE, "the value of key \"{}\" is a null pointer", k);
  const std::size_t length = std::strlen(value);
  if (length == 0) fail(MPI_ERR_INFO_VALUE, "the value of key \"{}\" is empty", k);
  if (length > MPI_MAX_INFO_VAL) {
    fail(MPI_ERR_INFO_VALUE,
         "the value of key \"{}\" is {} characters long; MPI_MAX_INFO_VAL is {}", k, length,
         MPI_MAX_INFO_VAL);
  }
  if (auto it = find(target.entries, k); it != target.entries.end()) {
    it->second.assign(value, length);
  } else {
    target.entries.emplace_back(std::move(k), std::string(value, length));
  }
  return MPI_SUCCESS;
}

int Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  rmpl_mpi_info& source = readable(info);
  const std::string k = checked_key(key);
  if (valuelen < 0) fail(MPI_ERR_ARG, "valuelen {} is negative", valuelen);
  auto it = find(source.entries, k);
  *flag = it != source.entries.end();
  if (*flag) {
    if (value == nullptr) fail(MPI_ERR_ARG, "the value buffer is a null pointer");
    // valuelen leaves out the terminating null, which is always written: a longer value is
    // truncated to valuelen characters.
    const std::size_t n = std::min(it->second.size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}

int Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  rmpl_mpi_info& source = readable(info);
  const std::string k = checked_key(key);
  if (buflen == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "buflen or flag is a null pointer");
  if (*buflen < 0) fail(MPI_ERR_ARG, "buflen {} is negative", *buflen);
  auto it = find(source.entries, k);
  *flag = it != source.entries.end();
  if (!*flag) return MPI_SUCCESS;
  // buflen counts the terminating null: a value that does not fit is cut to buflen - 1
  // characters; buflen then says how much room the whole value needs.
  if (*buflen > 0) {
    if (value == nullptr) fail(MPI_ERR_ARG, "the value buffer is a null pointer");
    const std::size_t n = std::min(it->second.size(), static_cast<std::size_t>(*buflen - 1));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(it->second.size()) + 1;
  return MPI_SUCCESS;
}

int Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  rmpl_mpi_info& source = readable(info);
  auto it = find(source.entries, checked_key(key));
  *flag = it != source.entries.end();
  if (*flag) *valuelen = static_cast<int>(it->second.size());
  return MPI_SUCCESS;
}

int Info_delete(MPI_Info info, const char* key) {
  rmpl_mpi_info& target = writable(info);
  const std::string k = checked_key(key);
  auto it = find(target.entries, k);
  if (it == target.entries.end()) {
    fail(MPI_ERR_INFO_NOKEY, "the info object has no key \"{}\"", k);
  }
  target.entries.erase(it);
  return MPI_SUCCESS;
}

int Info_get_nkeys(MPI_Info info, int* nkeys) {
  *nkeys = static_cast<int>(readable(info).entries.size());
  return MPI_SUCCESS;
}

int Info_get_nthkey(MPI_Info info, int n, char* key) {
  const rmpl_mpi_info& source = readable(info);
  const int nkeys = static_cast<int>(source.entries.size());
  if (n < 0 || n >= nkeys) {
    fail(MPI_ERR_ARG, "n = {} is not the number of a key: the info object has {}", n, nkeys);
  }
  if (key == nullptr) fail(MPI_ERR_ARG, "the key buffer is a null pointer");
  const std::string& k = source.entries[static_cast<std::size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/info.inc"  // the MPI_ and PMPI_ functions (generated)
