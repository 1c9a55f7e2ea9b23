"""Damages the one artifact in a TFC_CACHE_DIR, for cache-recovery.test.

Usage: damage_cache_entry.py CACHE_DIR append|resealed
append: garbage after a host program (its sha256 no longer matches).
resealed: a host program the runtime refuses ('in' renamed), with the
manifest's digests recomputed, so only loading it finds the damage.
"""
import glob
import hashlib
import json
import sys


def main() -> int:
    cache, mode = sys.argv[1], sys.argv[2]
    entries = glob.glob(f"{cache}/artifacts/*/manifest.json")
    if len(entries) != 1:
        print(f"expected one cache entry, found {entries}", file=sys.stderr)
        return 1
    entry = entries[0][:-len("/manifest.json")]
    with open(entries[0]) as f:
        manifest = json.load(f)
    kernel = manifest["kernels"][0]
    path = f"{entry}/{kernel['host']}"
    with open(path) as f:
        text = f.read()
    if mode == "append":
        with open(path, "a") as f:
            f.write("garbage\n")
        return 0
    text = text.replace("\nin ", "\nin_bogus ", 1)
    with open(path, "w") as f:
        f.write(text)
    kernel["sha256"]["host"] = hashlib.sha256(text.encode()).hexdigest()
    manifest_text = json.dumps(manifest, indent=2) + "\n"
    with open(f"{entry}/manifest.json", "w") as f:
        f.write(manifest_text)
    with open(f"{entry}/manifest.sha256", "w") as f:
        digest = hashlib.sha256(manifest_text.encode()).hexdigest()
        f.write(f"{digest}  manifest.json\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
