// Attribute caching (MPI-3.1 6.7): values a program (usually a library) attaches to communicators
// and datatypes under keys it created, with callbacks the layer runs when the object is duplicated
// (copy) and when the value goes (delete: MPI_*_delete_attr, overwriting it, freeing the object).
//
// Keyvals of both kinds share one numbering. A freed keyval (MPI-3.1 6.7.2: "the actual free does
// not transpire until after all references ... have been freed") stays while attributes are
// cached under it: their callbacks still run on dup and free, and the program may still read and
// delete them under the keyval's number; only new attachments are refused. It goes when the last
// of them is deleted, and its number then names nothing. The predefined keys (MPI_TAG_UB ...) are
// read-only and answered on every communicator.
//
// An object's attributes are deleted in the reverse of the order they were set: MPI-3.1 8.7.1
// requires it of MPI_COMM_SELF's at MPI_Finalize, and the same order serves every object.
#include <algorithm>
#include <iterator>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/runtime.hpp"
#include "mpi/attributes.hpp"
#include "mpi/call.hpp"

namespace rmpl::mpi {
namespace {

struct keyval {
  bool for_comms = true;  ///< else for datatypes
  MPI_Comm_copy_attr_function* comm_copy = nullptr;
  MPI_Comm_delete_attr_function* comm_delete = nullptr;
  MPI_Type_copy_attr_function* type_copy = nullptr;
  MPI_Type_delete_attr_function* type_delete = nullptr;
  void* extra_state = nullptr;
  int cached = 0;      ///< attributes cached under it now
  bool freed = false;  ///< by the program; kept while attributes use it
};

std::map<int, keyval>& keyvals() {
  static std::map<int, keyval> table;
  return table;
}
int next_keyval = 1;  // far below the predefined keys (MPI_TAG_UB = 0x64400001 ...)

bool predefined_key(int key) noexcept {
  return key >= MPI_TAG_UB && key <= MPI_APPNUM;
}

/// What the two kinds of object differ in.
template <class Handle>
struct kind;

template <>
struct kind<MPI_Comm> {
  static constexpr bool for_comms = true;
  static constexpr const char* noun = "communicator";
  static attribute_map& attributes(MPI_Comm c) { return c->attributes; }
  static int copy(const keyval& k, MPI_Comm from, int key, void* in, void* out, int* flag) {
    if (k.comm_copy == nullptr) return *flag = 0, MPI_SUCCESS;
    return k.comm_copy(from, key, k.extra_state, in, out, flag);
  }
  static int erase(const keyval& k, MPI_Comm c, int key, void* value) {
    return k.comm_delete == nullptr ? MPI_SUCCESS : k.comm_delete(c, key, value, k.extra_state);
  }
};

template <>
struct kind<MPI_Datatype> {
  static constexpr bool for_comms = false;
  static constexpr const char* noun = "datatype";
  static attribute_map& attributes(MPI_Datatype t) { return t->attributes; }
  static int copy(const keyval& k, MPI_Datatype from, int key, void* in, void* out, int* flag) {
    if (k.type_copy == nullptr) return *flag = 0, MPI_SUCCESS;
    return k.type_copy(from, key, k.extra_state, in, out, flag);
  }
  static int erase(const keyval& k, MPI_Datatype t, int key, void* value) {
    return k.type_delete == nullptr ? MPI_SUCCESS : k.type_delete(t, key, value, k.extra_state);
  }
};

/// Where the attribute under `key` is in `attributes` (end() when absent).
attribute_map::iterator find(attribute_map& attributes, int key) {
  return std::find_if(attributes.begin(), attributes.end(),
                      [key](const auto& attribute) { return attribute.first == key; });
}

/// A keyval the program may use on objects of kind `for_comms`: one it created and, unless
/// `attaching`, also one it freed while attributes still use it.
keyval& usable(int key, bool for_comms, bool attaching = false) {
  const char* noun = for_comms ? "communicator" : "datatype";
  if (predefined_key(key)) {
    fail(MPI_ERR_KEYVAL, "keyval {} is predefined (MPI_TAG_UB ... MPI_APPNUM): read-only", key);
  }
  auto it = keyvals().find(key);
  if (it == keyvals().end()) {
    fail(MPI_ERR_KEYVAL, "{} is not a {} keyval (never created, or freed)", key, noun);
  }
  if (it->second.freed && attaching) {
    fail(MPI_ERR_KEYVAL, "keyval {} was freed: no new attribute can be set under it", key);
  }
  if (it->second.for_comms != for_comms) {
    fail(MPI_ERR_KEYVAL, "keyval {} was created for {}s, not {}s", key,
         it->second.for_comms ? "communicator" : "datatype", noun);
  }
  return it->second;
}

/// One attribute fewer under `key`: a freed keyval goes with its last attribute.
void uncache(int key) {
  auto it = keyvals().find(key);
  if (it == keyvals().end()) return;
  if (--it->second.cached == 0 && it->second.freed) keyvals().erase(it);
}

template <class Handle>
[[noreturn]] void callback_failed(const char* which, int key, int code) {
  throw error(code, fmt::format("the {} callback of {} keyval {} returned error code {}", which,
                                kind<Handle>::noun, key, code));
}

/// Runs the delete callback of the attribute under `key` on `h`, then removes it; throws, leaving
/// it, if the callback fails.
template <class Handle>
void remove(Handle h, int key) {
  attribute_map& attributes = kind<Handle>::attributes(h);
  auto it = find(attributes, key);
  if (it == attributes.end()) return;
  // Copied out first: the callback may itself change the object's attributes.
  const keyval k = keyvals().at(key);
  const int code = kind<Handle>::erase(k, h, key, it->second);
  if (code != MPI_SUCCESS) callback_failed<Handle>("delete", key, code);
  it = find(attributes, key);  // looked up again: the callback may have changed the others
  if (it != attributes.end()) {
    attributes.erase(it);
    uncache(key);
  }
}

template <class Handle>
void set(Handle h, int key, void* value) {
  usable(key, kind<Handle>::for_comms, true);
  attribute_map& attributes = kind<Handle>::attributes(h);
  // An overwritten value is deleted as if by MPI_*_delete_attr; the new one is the most recently
  // set (deleted first).
  remove(h, key);
  if (find(attributes, key) != attributes.end()) return;  // (a delete callback set it again)
  attributes.emplace_back(key, value);
  ++keyvals().at(key).cached;
}

template <class Handle>
void copy_all(Handle from, Handle to) {
  // A snapshot: the callbacks may change `from`'s attributes while they run.
  const attribute_map source = kind<Handle>::attributes(from);
  for (const auto& [key, value] : source) {
    auto it = keyvals().find(key);
    if (it == keyvals().end()) continue;
    const keyval k = it->second;
    void* copied = nullptr;
    int flag = 0;
    const int code = kind<Handle>::copy(k, from, key, value, &copied, &flag);
    if (code != MPI_SUCCESS) {
      try {
        delete_attributes(to);
      } catch (const error&) {
        // The copy's failure is the one reported; `to` is discarded either way.
      }
      callback_failed<Handle>("copy", key, code);
    }
    attribute_map& copies = kind<Handle>::attributes(to);
    if (flag && find(copies, key) == copies.end()) {
      copies.emplace_back(key, copied);
      ++keyvals().at(key).cached;
    }
  }
}

template <class Handle>
void delete_all(Handle h) {
  attribute_map& attributes = kind<Handle>::attributes(h);
  while (!attributes.empty()) remove(h, attributes.back().first);  // the most recently set first
}

/// The value of a predefined key: the address of an int, as MPI_Comm_get_attr returns it (one int
/// per key, so a pointer read for one key stays valid while another is read).
void* predefined_value(int key) {
  static std::map<int, int> values;
  int& value = values[key];
  switch (key) {
    case MPI_TAG_UB:
      value = rmpl::tag_ub;
      break;
    case MPI_HOST:
      value = MPI_PROC_NULL;
      break;  // no process is distinguished as "the host"
    case MPI_IO:
      value = MPI_ANY_SOURCE;
      break;  // every rank can do I/O
    // Every rank runs on the same host and reads the same CLOCK_MONOTONIC (MPI_Wtime).
    case MPI_WTIME_IS_GLOBAL:
      value = 1;
      break;
    case MPI_UNIVERSE_SIZE:
      value = api::kernel().size();
      break;
    case MPI_LASTUSEDCODE:
      value = last_used_code();
      break;
    case MPI_APPNUM:
      value = 0;
      break;
    default:
      break;
  }
  return &value;
}

template <class Copy, class Delete>
int create_keyval(bool for_comms, Copy* copy, Delete* erase, int* key, void* extra_state) {
  if (key == nullptr) fail(MPI_ERR_ARG, "the keyval pointer is null");
  if (next_keyval >= MPI_TAG_UB) fail(MPI_ERR_KEYVAL, "every keyval number is in use");
  keyval k;
  k.for_comms = for_comms;
  if constexpr (std::is_same_v<Copy, MPI_Comm_copy_attr_function>) {
    k.comm_copy = copy;
    k.comm_delete = erase;
  } else {
    k.type_copy = copy;
    k.type_delete = erase;
  }
  k.extra_state = extra_state;
  *key = next_keyval++;
  keyvals().emplace(*key, k);
  return MPI_SUCCESS;
}

int free_keyval(bool for_comms, int* key) {
  if (key == nullptr) fail(MPI_ERR_ARG, "the keyval pointer is null");
  keyval& k = usable(*key, for_comms);
  k.freed = true;
  if (k.cached == 0) keyvals().erase(*key);
  *key = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int get_comm_attr(MPI_Comm c, int key, void* attribute_val, int* flag) {
  comm(c);
  if (attribute_val == nullptr || flag == nullptr) {
    fail(MPI_ERR_ARG, "the attribute_val or flag pointer is null");
  }
  if (predefined_key(key)) {
    *static_cast<void**>(attribute_val) = predefined_value(key);
    *flag = 1;
    return MPI_SUCCESS;
  }
  usable(key, true);
  auto it = find(c->attributes, key);
  *flag = it != c->attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

}  // namespace

void copy_attributes(MPI_Comm from, MPI_Comm to) {
  copy_all(from, to);
}
void copy_attributes(MPI_Datatype from, MPI_Datatype to) {
  copy_all(from, to);
}
void delete_attributes(MPI_Comm c) {
  delete_all(c);
}
void delete_attributes(MPI_Datatype t) {
  delete_all(t);
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

extern "C" {

int rmpl_mpi_comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int rmpl_mpi_comm_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int rmpl_mpi_comm_null_delete_fn(MPI_Comm, int, void*, void*) {
  return MPI_SUCCESS;
}
int rmpl_mpi_type_null_copy_fn(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int rmpl_mpi_type_dup_fn(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int rmpl_mpi_type_null_delete_fn(MPI_Datatype, int, void*, void*) {
  return MPI_SUCCESS;
}

}  // extern "C"

namespace rmpl::mpi::impl {
namespace {

// ---------------------------------------------------------------- communicators

int Comm_create_keyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* erase,
                       int* key, void* extra_state) {
  require_initialized();
  return create_keyval(true, copy, erase, key, extra_state);
}
int Comm_free_keyval(int* key) {
  require_initialized();
  return free_keyval(true, key);
}
int Comm_set_attr(MPI_Comm c, int key, void* value) {
  comm(c);
  set(c, key, value);
  return MPI_SUCCESS;
}
int Comm_get_attr(MPI_Comm c, int key, void* attribute_val, int* flag) {
  return call(c, "MPI_Comm_get_attr", [&] { return get_comm_attr(c, key, attribute_val, flag); });
}
int Comm_delete_attr(MPI_Comm c, int key) {
  comm(c);
  usable(key, true);
  remove(c, key);
  return MPI_SUCCESS;
}

// The MPI-1 names of the same operations.
int Keyval_create(MPI_Copy_function* copy, MPI_Delete_function* erase, int* key,
                  void* extra_state) {
  require_initialized();
  return create_keyval(true, copy, erase, key, extra_state);
}
int Keyval_free(int* key) {
  require_initialized();
  return free_keyval(true, key);
}
int Attr_put(MPI_Comm c, int key, void* value) {
  comm(c);
  set(c, key, value);
  return MPI_SUCCESS;
}
int Attr_get(MPI_Comm c, int key, void* attribute_val, int* flag) {
  return call(c, "MPI_Attr_get", [&] { return get_comm_attr(c, key, attribute_val, flag); });
}
int Attr_delete(MPI_Comm c, int key) {
  comm(c);
  usable(key, true);
  remove(c, key);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- datatypes

int Type_create_keyval(MPI_Type_copy_attr_function* copy, MPI_Type_delete_attr_function* erase,
                       int* key, void* extra_state) {
  require_initialized();
  return create_keyval(false, copy, erase, key, extra_state);
}
int Type_free_keyval(int* key) {
  require_initialized();
  return free_keyval(false, key);
}
int Type_set_attr(MPI_Datatype t, int key, void* value) {
  datatype(t, false);
  set(t, key, value);
  return MPI_SUCCESS;
}
int Type_get_attr(MPI_Datatype t, int key, void* attribute_val, int* flag) {
  datatype(t, false);
  if (attribute_val == nullptr || flag == nullptr) {
    fail(MPI_ERR_ARG, "the attribute_val or flag pointer is null");
  }
  usable(key, false);
  auto it = find(t->attributes, key);
  *flag = it != t->attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}
int Type_delete_attr(MPI_Datatype t, int key) {
  datatype(t, false);
  usable(key, false);
  remove(t, key);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/attributes.inc"  // the MPI_ and PMPI_ functions (generated)
