#!/usr/bin/env python3
"""XLA's side of bench/fit/memory_limits.py: the corpus transformer step under
jax.checkpoint policies, compiled by the installed jax on XLA:CPU.

Prints one JSON object: for each policy ("none", "full" = jax.checkpoint,
"dots_saveable"), XLA's memory_analysis() device bytes (argument + output -
alias + temp) and compiled.cost_analysis() FLOPs.

    .venv-jax/bin/python bench/fit/jax_policies.py
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "jax_corpus"))

import generate  # noqa: E402  (the corpus builders)


def measure(mode):
    import jax
    step, args = generate._transformer_setup(mode)
    compiled = jax.jit(step, donate_argnums=(0, 1)).lower(*args).compile()
    memory = compiled.memory_analysis()
    cost = compiled.cost_analysis()
    if isinstance(cost, list):
        cost = cost[0]
    device = (memory.argument_size_in_bytes + memory.output_size_in_bytes -
              memory.alias_size_in_bytes + memory.temp_size_in_bytes)
    return {"device_bytes": int(device), "temp_bytes": int(memory.temp_size_in_bytes),
            "flops": float(cost.get("flops", 0.0))}


def main():
    result = {"jax": __import__("jax").__version__}
    for policy, mode in (("none", "adam"), ("full", "remat"), ("dots_saveable", "remat_dots")):
        result[policy] = measure(mode)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
