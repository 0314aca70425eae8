#!/usr/bin/env bash
# The ecosystem checks of the build tier (scripts/build-collection.sh calls this with the built artifact):
#   1. the artifact in a clean environment: ansible-core alone (the ecosystem venv) and the collections galaxy.yml
#      declares (copied from the `ansible` package of the dev venv: Galaxy is not reachable here), the artifact
#      installed beside them; `ansible-playbook gpucluster.horovod.site --syntax-check` and `ansible-doc` of every
#      plugin of the collection there;
#   2. Galaxy's importer (galaxy-importer) on the artifact, with the declared collections visible to its ansible-lint
#      run; any warning but the known ones below fails (tools/galaxy_importer_run.py: the importer as it is, its
#      ansible-lint given more than its fixed 180 s, which a 2-core machine under the molecule tier's load exceeds);
#   3. the execution environment's build context (ansible-builder create) and what ansible-builder's introspection
#      reads from the installed collection's meta/execution-environment.yml;
#   4. the documentation site (scripts/docs-site.sh, warnings are errors).
# Building the EE image needs a base image from a registry, which these machines cannot reach: not done here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tarball=$(realpath "${1:?the built collection artifact}")
venv=$(scripts/cached-venv.sh ecosystem requirements-ecosystem.txt)
dev_collections=$(.venv/bin/python -c 'import ansible_collections, os; print(os.path.dirname(list(ansible_collections.__path__)[0]))')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a collection of the declared ones' own dependencies (community.docker needs library_inventory_filtering_v1)
declared=$(python3 -c 'import yaml; print(" ".join(yaml.safe_load(open("galaxy.yml"))["dependencies"]))')
for fqcn in $declared community.library_inventory_filtering_v1; do
    mkdir -p "$tmp/ansible_collections/${fqcn%%.*}"
    cp -r "$dev_collections/ansible_collections/${fqcn%%.*}/${fqcn#*.}" "$tmp/ansible_collections/${fqcn%%.*}/"
done
touch "$tmp/empty.cfg"
clean_env=(env -i PATH="$venv/bin:/usr/bin:/bin" HOME="$tmp" ANSIBLE_CONFIG="$tmp/empty.cfg"
           ANSIBLE_COLLECTIONS_PATH="$tmp" LC_ALL=C.UTF-8)

echo "== 1. the artifact with ansible-core alone and the declared collections ($declared)"
"${clean_env[@]}" ansible-galaxy collection install --no-deps -p "$tmp" "$tarball" > /dev/null
"${clean_env[@]}" ansible --version | head -1
"${clean_env[@]}" ansible-galaxy collection list -p "$tmp" 2>/dev/null | grep -E '^(gpucluster|ansible\.posix|community)'
(cd "$tmp" && "${clean_env[@]}" ansible-playbook --syntax-check -i localhost, gpucluster.horovod.site)
plugins=0
for type in module filter callback; do
    mapfile -t names < <("${clean_env[@]}" ansible-doc -t "$type" -l gpucluster.horovod 2>/dev/null | awk '{print $1}')
    [ "${#names[@]}" -gt 0 ] || { echo "ansible-doc lists no $type plugin of gpucluster.horovod" >&2; exit 1; }
    "${clean_env[@]}" ansible-doc -t "$type" "${names[@]}" > "$tmp/doc-$type.txt"
    plugins=$((plugins + ${#names[@]}))
done
# ansible-doc -t role -l prints each role, then its entry points indented under "specs:"
"${clean_env[@]}" ansible-doc -t role -l gpucluster.horovod > "$tmp/roles.txt" 2>/dev/null
roles=$(grep -cE '^gpucluster\.horovod\.' "$tmp/roles.txt")
entries=$(grep -cE '^    [a-z_]+ *:' "$tmp/roles.txt")
echo "ansible-doc: $plugins plugins (modules, filters, callbacks), $roles roles with $entries entry points documented"

echo "== 2. galaxy-importer $("$venv/bin/pip" show galaxy-importer 2>/dev/null | sed -n 's/^Version: //p')"
printf '[galaxy-importer]\nRUN_ANSIBLE_TEST = False\nRUN_ANSIBLE_LINT = True\n' > "$tmp/importer.cfg"
# its ansible-lint run looks in the user's collections (HOME is $tmp here), not in ANSIBLE_COLLECTIONS_PATH
mkdir -p "$tmp/.ansible/collections"
ln -s "$tmp/ansible_collections" "$tmp/.ansible/collections/ansible_collections"
(cd "$tmp" && "${clean_env[@]}" GALAXY_IMPORTER_CONFIG="$tmp/importer.cfg" python "$root/tools/galaxy_importer_run.py" "$tarball") \
    > "$root/build/galaxy-importer.log" 2>&1 || { tail -20 "$root/build/galaxy-importer.log"; exit 1; }
# Known: the internal role _common (its leading underscore marks it private, as module_utils' do) is not a name
# Galaxy's role-name pattern accepts; Galaxy lists the warning and imports the collection.
unknown=$(grep -E 'WARNING|ERROR' "$root/build/galaxy-importer.log" | grep -vE "roles/_common(/meta/main.yml)?:1: (role-name|schema\[meta\])" || true)
grep -E "^(Importer processing|Linting|WARNING|galaxy-importer's ansible-lint took)" "$root/build/galaxy-importer.log"
if [ -n "$unknown" ]; then echo "galaxy-importer: warnings or errors (build/galaxy-importer.log):" >&2; echo "$unknown" >&2; exit 1; fi
grep -q 'Importer processing completed successfully' "$root/build/galaxy-importer.log"

echo "== 3. the execution environment's build context (ansible-builder create)"
rm -rf build/ee-context
"$venv/bin/ansible-builder" create -f execution-environment.yml --context build/ee-context > /dev/null
grep -q '^ARG EE_BASE_IMAGE=' build/ee-context/Dockerfile
grep -q 'name: gpucluster.horovod' build/ee-context/_build/requirements.yml
(cd build/ee-context && find . -type f | sort)
"$venv/bin/python" build/ee-context/_build/scripts/introspect.py introspect "$tmp" > "$tmp/introspect.yml"
grep -E 'from collection gpucluster.horovod' "$tmp/introspect.yml"
grep -q "^- 'matplotlib.*from collection gpucluster.horovod'" "$tmp/introspect.yml"
grep -q "^- 'openssh-client \[platform:dpkg\].*from collection gpucluster.horovod'" "$tmp/introspect.yml"

echo "== 4. the documentation site"
scripts/docs-site.sh
