#ifndef HMO_SRC_IR_HLO_ATTRIBUTE_ORDER_H_
#define HMO_SRC_IR_HLO_ATTRIBUTE_ORDER_H_

// The instruction attribute names hmo knows, in the order XLA prints them.
// The printer sorts attributes by this rank (typed and verbatim alike, stable
// among equals); the parser rejects names missing from the table.

#include <optional>
#include <string_view>

namespace hmo::text_internal {

// Rank of `name` in print order, or nullopt for an unknown attribute.
std::optional<int> AttributeRank(std::string_view name);

}  // namespace hmo::text_internal

#endif  // HMO_SRC_IR_HLO_ATTRIBUTE_ORDER_H_
