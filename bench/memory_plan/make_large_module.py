#!/usr/bin/env python3
"""Writes a large scheduling benchmark module: a random DAG of N instructions.

Each instruction is an elementwise op (add, multiply, tanh, exp) or a dot on
f32[S,S] reading one or two of the last W instructions, so many values are
live at once and orders differ in peak; values nobody reads are folded into
an accumulator chain so the root is small. Deterministic for a seed.

    bench/memory_plan/make_large_module.py --instructions 100000 -o /tmp/large.hlo
"""

import argparse
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=40)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    shape = f"f32[{args.size},{args.size}]{{1,0}}"
    lines = ["HloModule large_dag, entry_computation_layout={(" + ", ".join([shape] * 4) + ")->" +
             shape + "}", "", "ENTRY %main (" +
             ", ".join(f"p{i}: {shape}" for i in range(4)) + ") -> " + shape + " {"]
    names = []
    for i in range(4):
        lines.append(f"  %p{i} = {shape} parameter({i})")
        names.append(f"%p{i}")
    users = {n: 0 for n in names}
    body = args.instructions - 6
    for k in range(body):
        recent = names[-args.window:]
        a = rng.choice(recent)
        b = rng.choice(recent)
        op = rng.choices(["add", "multiply", "tanh", "exponential", "dot"], [4, 3, 2, 1, 1])[0]
        name = f"%v{k}"
        if op in ("tanh", "exponential"):
            lines.append(f"  {name} = {shape} {op}({a})")
            users[a] += 1
        elif op == "dot":
            lines.append(f"  {name} = {shape} dot({a}, {b}), lhs_contracting_dims={{1}}, "
                         "rhs_contracting_dims={0}")
            users[a] += 1
            users[b] += 1
        else:
            lines.append(f"  {name} = {shape} {op}({a}, {b})")
            users[a] += 1
            users[b] += 1
        names.append(name)
        users[name] = 0
    # Fold every unread value into one sum (a tree keeps the depth low).
    sinks = [n for n in names if users[n] == 0]
    k = 0
    while len(sinks) > 1:
        a, b = sinks.pop(0), sinks.pop(0)
        name = f"%s{k}"
        k += 1
        lines.append(f"  {name} = {shape} add({a}, {b})")
        sinks.append(name)
    lines[-1] = lines[-1].replace("  %", "  ROOT %", 1)
    lines.append("}")
    with open(args.output, "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"{args.output}: {len(lines) - 4} instructions")


if __name__ == "__main__":
    main()
