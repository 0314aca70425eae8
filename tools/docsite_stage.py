"""Stage the collection for the documentation site (scripts/docs-site.sh).

Copies the collection's tracked files to DEST/ansible_collections/gpucluster/horovod and, in that copy only, moves
every computed role default (a Jinja expression in defaults/main.yml and so in meta/argument_specs.yml) out of the
option's ``default`` into its description: antsibull-docs validates a default against the option's type, and
``{{ gpucluster_ssh_port | default(22) }}`` is no int. ansible-doc and the role READMEs keep showing the expression
as the default (tools/gen_role_docs.py); the site says "Default: computed, C(...)".

    python tools/docsite_stage.py DEST
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def computed(value: object) -> bool:
    return isinstance(value, str) and "{{" in value


def stage_spec(spec: dict) -> int:
    """Move computed defaults into the descriptions of one argument_specs document; return how many moved."""
    moved = 0
    for entry in (spec.get("argument_specs") or {}).values():
        for option in (entry.get("options") or {}).values():
            if computed(option.get("default")):
                expr = " ".join(option.pop("default").split())
                description = option.get("description") or []
                if isinstance(description, str):
                    description = [description]
                option["description"] = [*description, f"Default: computed, C({expr})."]
                moved += 1
    return moved


def main(dest: str) -> int:
    target = Path(dest) / "ansible_collections" / "gpucluster" / "horovod"
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            out = target / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(src.read_bytes())
    moved = 0
    for path in sorted(target.glob("roles/*/meta/argument_specs.yml")):
        spec = yaml.safe_load(path.read_text())
        moved += stage_spec(spec)
        path.write_text(yaml.safe_dump(spec, sort_keys=False, width=120))
    print(f"docsite_stage: {target} ({moved} computed role defaults moved into their descriptions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
