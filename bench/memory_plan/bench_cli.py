"""The command line the packing benchmarks share: --hmo, --only, and extra
`hmo pack` flags after `--`."""

import argparse
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def parse_args(description):
    """Returns (args, extra): args.hmo and args.only, and the flags after `--`."""
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--hmo", default=str(REPO / "build/bin/hmo"))
    parser.add_argument("--only", default="", help="only instances whose name contains this")
    return parser.parse_args(argv), extra
