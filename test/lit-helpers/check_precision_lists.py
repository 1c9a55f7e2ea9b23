"""Checks that the mixed-precision op lists are documented as they are coded.

Usage: check_precision_lists.py SRC_ROOT HELP_FILE
Reads the op classes of each list in passes/precision/PrecisionPolicy.cpp,
maps them to mnemonics through the tfc ODS files, and fails naming every op
that the table of passes/precision/Passes.td puts in another row (or omits),
and every forward op that `tfc-opt --help` (HELP_FILE) does not name in the
option's description. Keeps the one policy, its docs and its help in step.
"""
import pathlib
import re
import sys

ROWS = {"TFC_LOW_PRECISION_OPS": "low", "TFC_F32_OPS": "f32", "TFC_REFUSED_OPS": "refused"}


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    policy = (root / "passes/precision/PrecisionPolicy.cpp").read_text()
    # Lists the policy takes from the dialect (TFC_OPTIMIZER_UPDATE_OPS).
    dialect_headers = "\n".join(p.read_text() for p in (root / "dialects/tfc").glob("*.h"))
    ods = "\n".join(p.read_text() for p in (root / "dialects/tfc").glob("Tfc*Ops.td"))
    mnemonic = dict(re.findall(r'^def\s+Tfc_(\w+)\s*:\s*Tfc_\w+<\s*"([a-z0-9_]+)"', ods, re.M))
    table = (root / "passes/precision/Passes.td").read_text()
    help_text = pathlib.Path(sys.argv[2]).read_text()
    help_text = " ".join(help_text.split())  # cl::desc wraps lines
    errors = []
    for macro, row in ROWS.items():
        m = re.search(r"#define " + macro + r"((?:[^\n]*\\\n)*[^\n]*)", policy)
        if not m:
            errors.append(f"{macro} not found in PrecisionPolicy.cpp")
            continue
        body = m.group(1)
        for ref in re.findall(r"\b(TFC_\w+_OPS)\b", body):
            d = re.search(r"#define " + ref + r"((?:[^\n]*\\\n)*[^\n]*)", dialect_headers)
            if not d:
                errors.append(f"{macro} names {ref}, which no dialects/tfc header defines")
                continue
            body += " " + d.group(1)
        classes = re.findall(r"\b(\w+Op)\b", body)
        line = re.search(r"^\s*\|\s*" + row + r"\s*\|([^\n]*)", table, re.M)
        if not line:
            errors.append(f"Passes.td has no table row '{row}'")
            continue
        for cls in classes:
            name = mnemonic.get(cls)
            if name is None:
                errors.append(f"{cls} (list {macro}) is not a tfc op in the ODS files")
                continue
            if not re.search(r"\btfc\." + name + r"\b", line.group(1)):
                errors.append(f"tfc.{name} is in {macro} but not in the '{row}' row of Passes.td")
            if row in ("low", "f32") and not name.endswith("_grad") and \
                    not name.endswith("_grad_input") and \
                    not re.search(r"\b" + name + r"\b", help_text):
                errors.append(f"{name} ({row}) is not named by the precision option's --help")
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
