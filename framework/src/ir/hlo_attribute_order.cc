#include "hlo_attribute_order.h"

#include <array>
#include <string>
#include <unordered_map>

namespace hmo::text_internal {
namespace {

// XLA prints opcode-specific attributes first, then called computations,
// then sharding / frontend attributes / control predecessors, then metadata
// and backend_config. Opcodes share one order: names that appear together
// on one opcode are listed in the order that opcode prints them.
constexpr std::array kOrder = {
    "index",
    "kind",
    "iota_dimension",
    "distribution",
    "exponent_bits",
    "mantissa_bits",
    "fft_type",
    "fft_length",
    "epsilon",
    "feature_index",
    "left_side",
    "lower",
    "unit_diagonal",
    "transpose_a",
    "infeed_config",
    "outfeed_shape",
    "outfeed_config",
    "channel_id",
    "replica_groups",
    "constrain_layout",
    "dimensions",
    "num_carries",
    "is_reverse",
    "is_associative",
    "use_global_device_ids",
    "has_dynamic_root",
    "mode",
    "source_target_pairs",
    "split_dimension",
    "is_host_transfer",
    "direction",
    "type",
    "slice",
    "dynamic_slice_sizes",
    "padding",
    "window",
    "dim_labels",
    "lhs_batch_dims",
    "lhs_contracting_dims",
    "rhs_batch_dims",
    "rhs_contracting_dims",
    "lhs_ragged_dims",
    "rhs_group_dims",
    "feature_group_count",
    "batch_group_count",
    "convolution_kind",
    "operand_precision",
    "algorithm",
    "sparsity",
    "sparsity_config",
    "padding_type",
    // custom-call prints its convolution-like attributes first.
    "custom_call_target",
    "offset_dims",
    "collapsed_slice_dims",
    "start_index_map",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "update_window_dims",
    "inserted_window_dims",
    "scatter_dims_to_operand_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "index_vector_dim",
    "slice_sizes",
    "indices_are_sorted",
    "unique_indices",
    "k",
    "largest",
    "is_stable",
    "rng_algorithm",
    "delta",
    "literal",
    "operand_layout_constraints",
    "custom_call_has_side_effect",
    "output_to_operand_aliasing",
    "schedule",
    "api_version",
    "cross_program_prefetch_index",
    "is_cross_program_prefetch",
    "parameter_replication",
    "domain",
    "condition",
    "body",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
    "branch_computations",
    "to_apply",
    "called_computations",
    "calls",
    "async_execution_thread",
    "async_group_id",
    "is_composite",
    "sharding",
    "frontend_attributes",
    "statistics",
    "origin",
    "original_value",
    "control-predecessors",
    "result_accuracy",
    "metadata",
    "backend_config",
};

}  // namespace

std::optional<int> AttributeRank(std::string_view name) {
  static const auto* ranks = [] {
    auto* m = new std::unordered_map<std::string_view, int>();
    for (size_t i = 0; i < kOrder.size(); ++i) m->emplace(kOrder[i], static_cast<int>(i));
    return m;
  }();
  auto it = ranks->find(name);
  if (it == ranks->end()) return std::nullopt;
  return it->second;
}

}  // namespace hmo::text_internal
