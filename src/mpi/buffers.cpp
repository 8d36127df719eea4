// The buffers of buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Bsend_init): the process's
// (MPI_Buffer_attach, MPI-3.1 3.6), a communicator's and a session's (MPI-4.1 3.6.2). The kernel
// copies each buffered message into memory of its own, so an attached buffer is a bound: its
// account (core/buffer_account.hpp) holds its size and what its messages in flight use, and a
// buffered send that does not fit fails with MPI_ERR_BUFFER. A send draws on its communicator's
// buffer, else its session's, else the process's (the engine looks the account up by context).
// MPI_BUFFER_AUTOMATIC attaches a buffer without bound. A detach waits until the buffer's messages
// are delivered; a flush waits the same and keeps the buffer.
#include <cstring>
#include <limits>
#include <memory>

#include "api/runtime.hpp"
#include "core/engine.hpp"
#include "mpi/call.hpp"
#include "mpi/requests.hpp"

namespace rmpl::mpi {
namespace {

/// MPI_*_iflush_buffer's work: ends once every message of `account` has been delivered.
class buffer_drain final : public core::activity {
 public:
  explicit buffer_drain(std::shared_ptr<const core::buffer_account> account) noexcept
      : account_(std::move(account)) {}
  bool advance() override { return account_->used == 0; }
  void rethrow_failure() override {}
  std::string describe() const override { return "flush of the buffered sends"; }

 private:
  std::shared_ptr<const core::buffer_account> account_;
};

/// The process's buffer (MPI_Buffer_attach): the engine keeps its account; its address here.
void* process_buffer = nullptr;
MPI_Count process_buffer_size = 0;
bool process_buffer_attached = false;

/// The account's size for an attach of `size` bytes at `buffer` (checked).
template <class Count>
std::size_t limit_of(const void* buffer, Count size) {
  if (buffer == MPI_BUFFER_AUTOMATIC) return core::buffer_account::unbounded;
  if (size < 0) fail(MPI_ERR_ARG, "the buffer size {} is negative", size);
  if (buffer == nullptr && size > 0) fail(MPI_ERR_BUFFER, "the buffer is null");
  return static_cast<std::size_t>(size);
}

/// What a detach gives back: the buffer's address and size (0 for MPI_BUFFER_AUTOMATIC).
template <class Count>
void give_back(void* address, MPI_Count size, void* buffer_addr, Count* out_size) {
  if (buffer_addr == nullptr || out_size == nullptr) {
    fail(MPI_ERR_ARG, "the address for the buffer or its size is null");
  }
  if (size > std::numeric_limits<Count>::max()) {
    fail(MPI_ERR_COUNT,
         "the buffer has {} bytes, more than an int holds: detach it with the _c "
         "form",
         size);
  }
  std::memcpy(buffer_addr, &address, sizeof address);
  *out_size = static_cast<Count>(address == MPI_BUFFER_AUTOMATIC ? 0 : size);
}

/// Waits until every message of `account` has been delivered.
void drain(const core::buffer_account& account) {
  core::engine& e = api::kernel();
  e.wait_until([&] { return account.used == 0; });
}

/// A request that completes once `account`'s messages have been delivered.
MPI_Request drain_request(MPI_Comm c, std::shared_ptr<const core::buffer_account> account) {
  core::engine& e = api::kernel();
  return make_request(c, request_kind::collective,
                      e.start_activity(std::make_unique<buffer_drain>(std::move(account)))->id());
}

/// The account a communicator's buffered sends draw on now.
std::shared_ptr<const core::buffer_account> account_of(const rmpl_mpi_comm& c);

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;
namespace core = rmpl::core;

namespace rmpl::mpi::impl {
namespace {

// ---------------------------------------------------------------- the process's buffer

template <class Count>
int Buffer_attach(void* buffer, Count size) {
  require_initialized();
  if (process_buffer_attached) {
    fail(MPI_ERR_BUFFER, "a buffer of {} bytes is attached already (detach it first)",
         process_buffer_size);
  }
  rmpl::api::kernel().attach_buffer(limit_of(buffer, size));
  process_buffer = buffer;
  process_buffer_size = buffer == MPI_BUFFER_AUTOMATIC ? 0 : size;
  process_buffer_attached = true;
  return MPI_SUCCESS;
}

template <class Count>
int Buffer_detach(void* buffer_addr, Count* size) {
  require_initialized();
  core::engine& e = rmpl::api::kernel();
  if (!process_buffer_attached) {
    // Nothing attached: MPI-3.1 lets the call return the null buffer (Open MPI, MPICH do).
    give_back(nullptr, 0, buffer_addr, size);
    return MPI_SUCCESS;
  }
  give_back(process_buffer, process_buffer_size, buffer_addr, size);
  // Returns once every buffered message of the buffer has been delivered (MPI-3.1 3.6.1).
  e.wait_until([&] { return e.process_buffered_bytes() == 0; });
  e.attach_buffer(0);
  process_buffer = nullptr;
  process_buffer_size = 0;
  process_buffer_attached = false;
  return MPI_SUCCESS;
}

int Buffer_flush(void) {
  require_initialized();
  core::engine& e = rmpl::api::kernel();
  // MPI-4.1: as MPI_Buffer_detach's wait, the buffer staying attached.
  e.wait_until([&] { return e.process_buffered_bytes() == 0; });
  return MPI_SUCCESS;
}

int Buffer_iflush(MPI_Request* request) {
  require_initialized();
  check_request_out(request);
  core::engine& e = rmpl::api::kernel();
  class process_drain final : public core::activity {
   public:
    explicit process_drain(core::engine& engine) noexcept : engine_(engine) {}
    bool advance() override { return engine_.process_buffered_bytes() == 0; }
    void rethrow_failure() override {}
    std::string describe() const override { return "flush of the buffered sends"; }

   private:
    core::engine& engine_;
  };
  *request = make_request(MPI_COMM_SELF, request_kind::collective,
                          e.start_activity(std::make_unique<process_drain>(e))->id());
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- a communicator's buffer

template <class Count>
int Comm_attach_buffer(MPI_Comm comm, void* buffer, Count size) {
  rmpl_mpi_comm& c = rmpl::mpi::comm(comm);
  if (c.buffer) {
    fail(MPI_ERR_BUFFER, "a buffer is attached to this communicator already (detach it first)");
  }
  auto account = std::make_shared<core::buffer_account>();
  account->limit = limit_of(buffer, size);
  account->attached = true;
  rmpl::api::kernel().use_buffer(c.impl->kernel.context, account);
  c.buffer = std::move(account);
  c.buffer_address = buffer;
  return MPI_SUCCESS;
}

template <class Count>
int Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, Count* size) {
  rmpl_mpi_comm& c = rmpl::mpi::comm(comm);
  if (!c.buffer) fail(MPI_ERR_BUFFER, "no buffer is attached to this communicator");
  give_back(c.buffer_address, static_cast<MPI_Count>(c.buffer->limit), buffer_addr, size);
  drain(*c.buffer);
  // Its sends draw on its session's buffer again, if it has one, else on the process's.
  rmpl::api::kernel().use_buffer(c.impl->kernel.context, c.session_buffer);
  c.buffer.reset();
  c.buffer_address = nullptr;
  return MPI_SUCCESS;
}

int Comm_flush_buffer(MPI_Comm comm) {
  const rmpl_mpi_comm& c = rmpl::mpi::comm(comm);
  if (auto account = account_of(c)) drain(*account);
  return MPI_SUCCESS;
}

int Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  const rmpl_mpi_comm& c = rmpl::mpi::comm(comm);
  check_request_out(request);
  auto account = account_of(c);
  if (!account) {
    // The process's buffer: as MPI_Buffer_iflush.
    return Buffer_iflush(request);
  }
  *request = drain_request(comm, std::move(account));
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- a session's buffer

template <class Count>
int Session_attach_buffer(MPI_Session session, void* buffer, Count size) {
  rmpl_mpi_session& s = rmpl::mpi::session(session);
  if (s.buffer->attached) {
    fail(MPI_ERR_BUFFER, "a buffer is attached to this session already (detach it first)");
  }
  s.buffer->limit = limit_of(buffer, size);
  s.buffer->attached = true;
  s.buffer_address = buffer;
  return MPI_SUCCESS;
}

template <class Count>
int Session_detach_buffer(MPI_Session session, void* buffer_addr, Count* size) {
  rmpl_mpi_session& s = rmpl::mpi::session(session);
  if (!s.buffer->attached) fail(MPI_ERR_BUFFER, "no buffer is attached to this session");
  give_back(s.buffer_address, static_cast<MPI_Count>(s.buffer->limit), buffer_addr, size);
  drain(*s.buffer);
  s.buffer->attached = false;
  s.buffer->limit = 0;
  s.buffer_address = nullptr;
  return MPI_SUCCESS;
}

int Session_flush_buffer(MPI_Session session) {
  drain(*rmpl::mpi::session(session).buffer);
  return MPI_SUCCESS;
}

int Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  const rmpl_mpi_session& s = rmpl::mpi::session(session);
  check_request_out(request);
  *request = drain_request(MPI_COMM_SELF, s.buffer);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

namespace rmpl::mpi {
namespace {

std::shared_ptr<const core::buffer_account> account_of(const rmpl_mpi_comm& c) {
  if (c.buffer) return c.buffer;
  if (c.session_buffer && c.session_buffer->attached) return c.session_buffer;
  return nullptr;  // the process's
}

}  // namespace
}  // namespace rmpl::mpi

#include "mpi/bindings/buffers.inc"  // the MPI_ and PMPI_ functions (generated)
