# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write roles/horovod_benchmark/files/result.schema.json from RESULT_SCHEMA (plugin_utils/benchmark/schema.py).

The JSON Schema file ships with the role for readers of result.json; the combiner validates against
the Python dict. ``--check`` fails when the file is out of date (``make unit`` runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".cache" / "collections"))

from ansible_collections.gpucluster.horovod.plugins.plugin_utils.benchmark.schema import RESULT_SCHEMA  # noqa: E402

SCHEMA_FILE = ROOT / "roles" / "horovod_benchmark" / "files" / "result.schema.json"


def render() -> str:
    return json.dumps(RESULT_SCHEMA, indent=2, sort_keys=True) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail when the file is out of date")
    args = parser.parse_args(argv)
    text = render()
    current = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.exists() else ""
    if args.check:
        if current != text:
            print(f"{SCHEMA_FILE.relative_to(ROOT)} is out of date: run make docs", file=sys.stderr)
            return 1
        return 0
    if current != text:
        SCHEMA_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {SCHEMA_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
