"""Checks that every op defined in the tfc ODS files appears in a test file.

Usage: check_op_coverage.py TD_DIR TEST_FILE...
Reads every Tfc*Ops.td under TD_DIR, collects the mnemonics of the op
definitions (`def Tfc_AddOp : Tfc_BinaryOp<"add", ...>`), and fails listing
each mnemonic whose `tfc.<mnemonic>` occurs in none of the test files. This
keeps ops.mlir's promise to round-trip every op true as ops are added.
"""
import pathlib
import re
import sys

OP_DEF = re.compile(r'^def\s+Tfc_\w+\s*:\s*Tfc_\w+<\s*"([a-z0-9_.]+)"', re.M)


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: check_op_coverage.py TD_DIR TEST_FILE...", file=sys.stderr)
        return 2
    td_files = sorted(pathlib.Path(sys.argv[1]).glob("Tfc*Ops.td"))
    mnemonics = sorted({m for f in td_files for m in OP_DEF.findall(f.read_text())})
    if not mnemonics:
        print(f"no tfc op definitions found under {sys.argv[1]}", file=sys.stderr)
        return 1
    tests = "\n".join(pathlib.Path(p).read_text() for p in sys.argv[2:])
    missing = [m for m in mnemonics
               if not re.search(r"\btfc\." + re.escape(m) + r"\b", tests)]
    if missing:
        print("ops without a round-trip test: " + ", ".join(missing), file=sys.stderr)
        return 1
    print(f"{len(mnemonics)} ops covered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
