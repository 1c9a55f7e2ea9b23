"""docs/frontend.md's "Supported aten ops" section lists exactly the aten ops
the frontend lowers (tfc_torch.supported_ops()), so the page cannot drift
from the registry.

Usage: check_docs.py   (exit 0 pass, 1 failure)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))


def documented_ops(path):
    text = open(path).read()
    start = text.index("## Supported aten ops")
    end = text.index("\n## ", start + 1)
    return {"aten." + name for name in re.findall(r"`([A-Za-z0-9_]+\.[A-Za-z0-9_]+)`",
                                                  text[start:end])}


def main():
    import tfc_torch
    doc = os.path.join(ROOT, "docs", "frontend.md")
    listed = documented_ops(doc)
    lowered = set(tfc_torch.supported_ops())
    missing, stale = sorted(lowered - listed), sorted(listed - lowered)
    for name in missing:
        print(f"FAIL {name} is lowered but not listed in docs/frontend.md")
    for name in stale:
        print(f"FAIL {name} is listed in docs/frontend.md but not lowered")
    if not missing and not stale:
        print(f"ok   docs/frontend.md lists the {len(lowered)} lowered aten ops")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
