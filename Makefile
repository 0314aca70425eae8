# gpucluster.horovod — developer and CI entry points.
#   make run     build the sandbox cluster (3 containers) and run site.yml on it
#   make test    every test tier (what .ci/run calls)
# Fast targets: lint, unit, sanity, molecule [SCENARIO=name], images, docs, build.
#   make timing-single-node   Horovod on one node, to compare with the 3-node scenario's time
#   make bench                the benchmark on the sandbox, written into docs/performance.md and docs/bench/
#   make bench-converge       converge time of the sandbox (1 and 3 nodes, first run and re-run)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
COLLECTION_LINK := .cache/collections/ansible_collections/gpucluster/horovod
SCENARIO ?=
INVENTORY ?= inventories/sandbox/hosts.yml

.PHONY: help venv host images lint unit sanity docs-site molecule clean-caches timing-single-node bench bench-converge build docs docs-check test run sandbox sandbox-destroy clean

help:
	@echo "make run              sandbox cluster + site.yml + benchmark report"
	@echo "make test             every test tier (lint, unit, sanity, build, molecule)"
	@echo "make lint|unit|sanity|build|docs|images"
	@echo "make molecule [SCENARIO=name]"
	@echo "make timing-single-node  Horovod on one node (timing comparison, not in make test)"
	@echo "make bench            the benchmark on the sandbox: docs/performance.md section and docs/bench/ (not a test)"
	@echo "make bench-converge   time site.yml on 1 and 3 sandbox nodes, first converge and re-run (docs/performance.md)"
	@echo "make sandbox-destroy  remove the sandbox containers and network"
	@echo "make clean-caches     empty the machine-level test caches (downloads, apt archives, ccache)"

# The venv is made once per machine in the test cache under the hash of requirements-dev.txt and linked here as
# .venv (scripts/dev-venv.sh); when it is there already, this only checks the link.
venv: $(COLLECTION_LINK)
	@PYTHON=$(PYTHON) scripts/dev-venv.sh

# The checkout is the collection: link it where ansible.cfg's collections_path looks.
$(COLLECTION_LINK):
	mkdir -p $(dir $@)
	ln -sfn ../../../.. $@

host:
	scripts/host-setup.sh

images: host
	scripts/build-images.sh

lint: venv host
	yamllint --strict .
	shellcheck scripts/*.sh images/*.sh tests/standin_repo/*.sh tools/*.sh molecule/_shared/files/*.sh .ci/run
	ansible-lint
	ruff check .
	ruff format --check .
	antsibull-changelog lint

unit: venv
	pytest tests/unit -q -m "not frameworks"
	scripts/unit-frameworks.sh
	@if [ -f tools/gen_compat_docs.py ]; then python tools/gen_compat_docs.py --check; fi
	python tools/gen_role_docs.py --check
	python tools/gen_input_checks_doc.py --check
	python tools/gen_result_schema.py --check

docs: venv
	@if [ -f tools/gen_compat_docs.py ]; then python tools/gen_compat_docs.py; fi
	python tools/gen_role_docs.py
	python tools/gen_input_checks_doc.py
	python tools/gen_result_schema.py

sanity: venv host
	scripts/sanity.sh

build: venv
	scripts/build-collection.sh

# The documentation site alone (build/docs-site/build/html; the build tier builds it too)
docs-site: venv
	scripts/docs-site.sh

molecule: venv images
	scripts/molecule.sh $(SCENARIO)

# Not a test tier: a timing comparison kept out of molecule/ (molecule finds it through MOLECULE_GLOB).
timing-single-node: venv images
	MOLECULE_GLOB='tests/timing/*/molecule.yml' scripts/molecule.sh horovod_single_node

# Not a test tier: the converge benchmark (about 20 minutes; rebuilds the sandbox, writes the
# "Converge speed" section of docs/performance.md and tests/output/bench-converge/).
bench-converge: venv images
	python tools/bench_converge.py

# Not a test tier: the benchmark on the sandbox (about 15 minutes from a fresh clone; starts the sandbox, runs
# site.yml with its benchmark, writes the "Benchmark on the sandbox" section of docs/performance.md and docs/bench/).
bench: venv images
	python tools/bench.py

# No venv prerequisite: scripts/test-all.sh makes it itself, with the base images built beside it.
test:
	scripts/test-all.sh

sandbox: venv images
	ansible-playbook playbooks/sandbox.yml

run: sandbox
	ansible-playbook site.yml -i $(INVENTORY)
	@scripts/print-report.sh

sandbox-destroy: venv
	ansible-playbook playbooks/sandbox.yml -e sandbox_state=absent

clean:
	rm -rf build tests/output .pytest_cache .ruff_cache gpucluster-horovod-*.tar.gz

# The machine-level test caches (downloads, apt archives, compile cache: scripts/test-cache-dir.sh), shared by every
# checkout on this machine; the next make test fills them again.
clean-caches:
	@dir=$$(scripts/test-cache-dir.sh); echo "removing $$dir ($$(du -sh "$$dir" 2>/dev/null | cut -f1))"; rm -rf "$$dir"
