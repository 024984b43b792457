#ifndef HMO_BASE_STATUS_MACROS_H_
#define HMO_BASE_STATUS_MACROS_H_

// Error propagation for absl::Status / absl::StatusOr, in the style of XLA's
// TF_RETURN_IF_ERROR / TF_ASSIGN_OR_RETURN. Errors are values everywhere in
// hmo; exceptions never cross a library or plugin boundary.

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HMO_STATUS_CONCAT_INNER_(a, b) a##b
#define HMO_STATUS_CONCAT_(a, b) HMO_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` yields a non-OK status.
#define HMO_RETURN_IF_ERROR(expr)                  \
  do {                                             \
    ::absl::Status hmo_status_ = (expr);           \
    if (!hmo_status_.ok()) return hmo_status_;     \
  } while (0)

// `lhs` is declared or assigned from the value of a StatusOr `rexpr`, or the
// enclosing function returns its error.
#define HMO_ASSIGN_OR_RETURN(lhs, rexpr) \
  HMO_ASSIGN_OR_RETURN_IMPL_(HMO_STATUS_CONCAT_(hmo_statusor_, __LINE__), lhs, rexpr)

#define HMO_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                               \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // HMO_BASE_STATUS_MACROS_H_
