#!/usr/bin/env bash
# The documentation site (make docs-site): antsibull-docs renders every module, filter, action, callback and role
# entry point of the collection from their own documentation, the guides (README.md, docs/*.md) join it as Markdown
# pages, and Sphinx builds it with warnings as errors (-W): a broken reference between the plugins' docs fails here.
# The output (build/docs-site/build/html) is not committed. The tools come from the ecosystem venv
# (scripts/cached-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$(scripts/cached-venv.sh ecosystem requirements-ecosystem.txt)
site=build/docs-site
rm -rf "$site"
mkdir -p "$site"
# a copy of the collection whose computed role defaults are in their descriptions (tools/docsite_stage.py says why)
"$venv/bin/python" tools/docsite_stage.py "$site/collections"
export PATH="$venv/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$root/$site/collections"
antsibull-docs sphinx-init --use-current --dest-dir "$site" gpucluster.horovod > /dev/null
cat >> "$site/conf.py" <<'PY'
# --- appended by scripts/docs-site.sh ---
# The guides are Markdown (README.md, docs/*.md): MyST reads them.
extensions.append("myst_parser")
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
# The guides link files of the repository (roles/..., tests/...) that are not pages of the site.
suppress_warnings = ["myst.xref_missing"]

# The build machines reach no documentation site, so no intersphinx inventory: the labels of Ansible's own
# documentation that the generated pages use resolve to its published pages here instead, and a label that is
# neither ours nor Ansible's stays a warning (sphinx-build -W fails on it).
intersphinx_mapping = {}
ANSIBLE_DOCS = "https://docs.ansible.com/projects/ansible/latest/"
ANSIBLE_LABELS = {
    "common_return_values": "reference_appendices/common_return_values.html",
    "action_plugins": "plugins/action.html",
    "callback_plugins": "plugins/callback.html",
    "ansible_configuration_settings": "reference_appendices/config.html",
}


def _ansible_reference(app, env, node, contnode):
    from docutils import nodes

    target = node.get("reftarget", "")
    page = ANSIBLE_LABELS.get(target)
    if page is None and target.startswith("ansible_collections.ansible.builtin."):
        page = f"collections/ansible/builtin/{target.rsplit('.', 1)[1]}.html"
    if page is None:
        return None
    ref = nodes.reference("", "", internal=False, refuri=ANSIBLE_DOCS + page)
    ref.append(contnode)
    return ref


def setup(app):
    app.connect("missing-reference", _ansible_reference)
PY
cd "$site"
mkdir -p rst && chmod og-w rst
antsibull-docs --config-file antsibull-docs.cfg collection --fail-on-error --cleanup everything --use-current \
    --dest-dir rst gpucluster.horovod
# the guides, after antsibull-docs (its cleanup removes what it did not write)
mkdir -p rst/guides
cp "$root/README.md" rst/guides/readme.md
for f in "$root"/docs/*.md; do cp "$f" "rst/guides/$(basename "$f")"; done
cat >> rst/index.rst <<'RST'


.. toctree::
   :maxdepth: 1
   :caption: Guides:
   :glob:

   guides/readme
   guides/*
RST
sphinx-build -q -W --keep-going -b html -c . rst build/html
echo "docs-site: $(find build/html -name '*.html' | wc -l) pages in $site/build/html"
