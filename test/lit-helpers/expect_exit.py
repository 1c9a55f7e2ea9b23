"""Runs a command and fails unless it exits with the given code.

Usage (from lit): %expect-exit 1 tfc-opt bad.mlir
Its stdout and stderr pass through so FileCheck can read the diagnostics.
lit's `not` only tells zero from non-zero; tfc's tools promise exit code 1
for bad input (and never a crash, which `not --crash` would be needed for).
"""
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: expect_exit.py CODE COMMAND...", file=sys.stderr)
        return 2
    expected = int(sys.argv[1])
    proc = subprocess.run(sys.argv[2:])
    if proc.returncode != expected:
        print(f"expect_exit: '{sys.argv[2]}' exited with {proc.returncode}, "
              f"expected {expected}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
