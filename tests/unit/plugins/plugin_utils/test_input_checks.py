"""Input checks (plugin_utils/input_checks): the argument spec of each role plus its semantic checks.

BAD_INPUTS is the table of bad inputs across every role: each is refused, naming the variable, while
the role's valid baseline passes clean. The same validate_role() runs in the validate_inputs action.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ansible_collections.gpucluster.horovod.plugins.plugin_utils import input_checks as ic

ROOT = Path(__file__).resolve().parents[4]
HOSTS = frozenset({"n1", "n2", "n3"})


def _options(role):
    """Every entry point's options, main first (as validate_inputs collects them)."""
    specs = yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    options = {}
    for entry in sorted(specs, key=lambda name: name != "main"):
        for name, spec in (specs[entry].get("options") or {}).items():
            options.setdefault(name, spec)
    return options


def _role_vars(role, os_facts=None):
    """The role's constants as validate_inputs loads them for a host (Debian 12 unless os_facts say otherwise;
    the OS cascade last: default, family, distribution, distribution-major)."""
    facts = os_facts or {"os_family": "Debian", "distribution": "Debian", "distribution_major_version": "12"}
    cascade = dict.fromkeys(
        [
            "default",
            facts["os_family"],
            facts["distribution"],
            f"{facts['distribution']}-{facts['distribution_major_version']}",
        ]
    )
    data = {}
    vars_dir = ROOT / "roles" / role / "vars"
    for path in sorted(vars_dir.glob("*.yml")):
        if path.stem[0].islower() and path.stem != "default":
            data.update(yaml.safe_load(path.read_text()) or {})
    for stem in cascade:
        if (vars_dir / f"{stem}.yml").is_file():
            data.update(yaml.safe_load((vars_dir / f"{stem}.yml").read_text()) or {})
    return data


H100 = {"name": "NVIDIA H100 80GB HBM3", "compute_cap": "9.0", "pci_id": "10de:2330"}
B200 = {"name": "NVIDIA B200", "pci_id": "10de:2901"}


# A valid, fully resolved value for every input of every role (what the defaults give on a
# Debian 12 sandbox node).
BASELINE = {
    "preflight": {
        "preflight_framework": "pytorch",
        "preflight_framework_version": "",
        "preflight_python": "",
        "preflight_python_env": "",
        "preflight_run_in_containers": False,
        "preflight_detect_fabric": True,
        "preflight_fabric_root": "/",
        "preflight_fabric_mismatch": "fail",
        "preflight_detect_slurm": True,
        "preflight_slurm_mismatch": "fail",
        "preflight_pins": {},
        "preflight_gather_gpu_facts": True,
        "preflight_hosts": [],
        "preflight_training_user": "hvd",
        "preflight_ssh_port": 22,
        "preflight_launcher": "n1",
        "preflight_detect_interconnect": True,
        "preflight_validate_roles": ["preflight", {"role": "horovod_benchmark", "tags": ["benchmark"]}],
        "preflight_warn_unknown_variables": True,
        "preflight_node_health": "fail",
        "preflight_expected_gpus": 0,
        "preflight_dcgm_diag": 0,
        "preflight_exclude_unhealthy": False,
    },
    "nvidia_driver": {
        "nvidia_driver_method": "distro",
        "nvidia_driver_branch": "535",
        "nvidia_driver_min": "525.60.13",
        "nvidia_driver_kernel_module": "proprietary",
        "nvidia_driver_version": "",
        "nvidia_driver_upgrade": False,
        "nvidia_driver_force": False,
        "nvidia_driver_gpu_facts": {"gpus": [H100], "gpu_count": 1, "driver_version": None, "secure_boot": False},
        "nvidia_driver_server": False,
        "nvidia_driver_components": "compute",
        "nvidia_driver_running_kernel": True,
        "nvidia_driver_kernels": [],
        "nvidia_driver_kernel_packages": [],
        "nvidia_driver_blacklist_nouveau": True,
        "nvidia_driver_mok_signing": False,
        "nvidia_driver_mok_key": "/var/lib/dkms/mok.key",
        "nvidia_driver_mok_cert": "/var/lib/dkms/mok.pub",
        "nvidia_driver_persistenced": True,
        "nvidia_driver_reboot": "if_needed",
        "nvidia_driver_reboot_throttle": 1,
        "nvidia_driver_reboot_timeout": 1800,
        "nvidia_driver_repo_base_url": "https://mirror.example/cuda/repos",
        "nvidia_driver_repo_url": "",
        "nvidia_driver_repo_suites": ["/"],
        "nvidia_driver_repo_components": [],
        "nvidia_driver_repo_key_url": "",
        "nvidia_driver_repo_key_sha256": "",
    },
    "passwordless_ssh": {
        "passwordless_ssh_user": "hvd",
        "passwordless_ssh_uid": 2000,
        "passwordless_ssh_group": "hvd",
        "passwordless_ssh_gid": 2000,
        "passwordless_ssh_home": "/home/hvd",
        "passwordless_ssh_shell": "/bin/bash",
        "passwordless_ssh_sudo": False,
        "passwordless_ssh_keep_ipc": True,
        "passwordless_ssh_port": 22,
        "passwordless_ssh_extra_port": None,
        "passwordless_ssh_rotate": False,
        "passwordless_ssh_verify": "ring",
        "passwordless_ssh_launcher": "n1",
        "passwordless_ssh_running_jobs": "refuse",
        "passwordless_ssh_running_jobs_wait_s": 1800,
        "passwordless_ssh_extra_names": [],
    },
    "openmpi": {
        "openmpi_install_method": "distro",
        "openmpi_version": "4.1.4",
        "openmpi_prefix": "/opt/openmpi",
        "openmpi_source_url": "https://mirror.example/openmpi-4.1.4.tar.bz2",
        "openmpi_source_checksum": "",
        "openmpi_configure_flags": ["--disable-mpi-fortran"],
        "openmpi_with_cuda": False,
        "openmpi_cuda_home": "/usr/local/cuda",
        "openmpi_with_ucx": False,
        "openmpi_pmix": "auto",
        "openmpi_builder": "n1",
        "openmpi_install_dev": "builder",
        "openmpi_build_dir": "/var/tmp/gpucluster-openmpi",
        "openmpi_artifact_dir": "/root/.cache/gpucluster/openmpi",
        "openmpi_build_timeout": 5400,
        "openmpi_build_ccache_dir": "/var/cache/ccache",
        "openmpi_tcp_if_include": ["172.18.0.0/16"],
        "openmpi_mca_params": {},
        "openmpi_verify_remote": True,
        "openmpi_user": "hvd",
    },
    "cuda": {
        "cuda_install_method": "redist",
        "cuda_version": "12.4",
        "cuda_replace": False,
        "cuda_force": False,
        "cuda_distro_install_recommends": False,
        "cuda_prefix": "/usr/local",
        "cuda_repo_base_url": "https://repo.example/compute/cuda/repos",
        "cuda_repo_url": "",
        "cuda_repo_suites": ["/"],
        "cuda_repo_components": [],
        "cuda_repo_key_url": "",
        "cuda_repo_key_sha256": "",
        "cuda_redist_base_url": "https://redist.example/compute/cuda/redist",
        "cuda_redist_components": ["cuda_cudart", "cuda_nvcc", "cuda_cccl", "cuda_nvrtc"],
        "cuda_redist_manifest_sha256": "",
        "cuda_redist_download_dir": "/var/cache/gpucluster/cuda-redist",
        "cuda_verify": True,
    },
    "cudnn": {
        "cudnn_install_method": "pip",
        "cudnn_version": "9.1.0.70",
        "cudnn_cuda_version": "12.4",
        "cudnn_replace": False,
        "cudnn_force": False,
        "cudnn_venv": "/opt/gpucluster/venv",
        "cudnn_pip_index_url": "",
        "cudnn_pip_extra_args": [],
        "cudnn_prefix": "/usr/local",
        "cudnn_redist_base_url": "https://redist.example/compute/cudnn/redist",
        "cudnn_redist_download_dir": "/var/cache/gpucluster/cudnn-redist",
        "cudnn_redist_manifest_sha256": "",
        "cudnn_repo_base_url": "https://repo.example/compute/cuda/repos",
        "cudnn_repo_url": "",
        "cudnn_repo_suites": ["/"],
        "cudnn_repo_components": [],
        "cudnn_repo_key_url": "",
        "cudnn_repo_key_sha256": "",
        "cudnn_cuda_home": "/usr/local/cuda",
        "cudnn_verify": True,
    },
    "docker": {
        "docker_install_method": "distro",
        "docker_version": "",
        "docker_upgrade": False,
        "docker_replace": False,
        "docker_repo_base_url": "https://mirror.example/docker/linux",
        "docker_repo_key_sha256": "",
        "docker_repo_channel": "stable",
        "docker_repo_packages": ["docker-ce", "docker-ce-cli"],
        "docker_repo_extra_packages": ["containerd.io", "docker-buildx-plugin"],
        "docker_registry_mirrors": [],
        "docker_data_root": "",
        "docker_log_driver": "",
        "docker_log_opts": {},
        "docker_default_runtime": "",
        "docker_daemon_settings": {},
        "docker_users": [],
        "docker_service_enabled": True,
        "docker_daemon_json_settings": {},
        "docker_daemon_json_restart": True,
    },
    "horovod_container": {
        "horovod_container_image": "gpucluster/horovod-train",
        "horovod_container_base_image": "debian:12",
        "horovod_container_base_image_archive": "",
        "horovod_container_packages": ["openssh-server", "python3", "openmpi-bin"],
        "horovod_container_extra_packages": [],
        "horovod_container_venv": "/opt/gpucluster/venv",
        "horovod_container_copy_paths": [],
        "horovod_container_builder": "",
        "horovod_container_build_network": "host",
        "horovod_container_name": "gpucluster-horovod",
        "horovod_container_ssh_port": 12345,
        "horovod_container_user": "hvd",
        "horovod_container_ssh_key": "",
        "horovod_container_known_hosts": "",
        "horovod_container_volumes": ["/opt/gpucluster/benchmark:/opt/gpucluster/benchmark:ro"],
        "horovod_container_env": {},
        "horovod_container_shm_size": "1G",
        "horovod_container_gpus": "auto",
        "horovod_container_rdma": "auto",
        "horovod_container_rdma_memlock": "unlimited",
        "horovod_container_image_cache_dir": "/root/.cache/gpucluster/images",
        "horovod_container_node_dir": "/var/lib/gpucluster/container",
        "horovod_container_running_jobs": "wait",
        "horovod_container_running_jobs_wait_s": 600,
    },
    "nvidia_container_toolkit": {
        "nvidia_container_toolkit_version": "",
        "nvidia_container_toolkit_upgrade": False,
        "nvidia_container_toolkit_force": False,
        "nvidia_container_toolkit_repo_base_url": "https://mirror.example/libnvidia-container",
        "nvidia_container_toolkit_repo_channel": "stable",
        "nvidia_container_toolkit_repo_key_sha256": "c880576d6cf75a48e5027a871bac70fd0421ab07d2b55f30877b21f1c87959c9",
        "nvidia_container_toolkit_packages": [
            "nvidia-container-toolkit",
            "nvidia-container-toolkit-base",
            "libnvidia-container-tools",
            "libnvidia-container1",
        ],
        "nvidia_container_toolkit_default_runtime": False,
        "nvidia_container_toolkit_cdi": True,
        "nvidia_container_toolkit_cdi_spec": "/etc/cdi/nvidia.yaml",
    },
    "nccl": {
        "nccl_install_method": "pip",
        "nccl_version": "2.21.5",
        "nccl_cuda_version": "12.4",
        "nccl_replace": False,
        "nccl_force": False,
        "nccl_prefix": "/opt/gpucluster",
        "nccl_pip_index_url": "",
        "nccl_pip_extra_args": [],
        "nccl_repo_base_url": "https://repo.example/compute/cuda/repos",
        "nccl_repo_url": "",
        "nccl_repo_suites": ["/"],
        "nccl_repo_components": [],
        "nccl_repo_key_url": "",
        "nccl_repo_key_sha256": "",
        "nccl_cuda_home": "/usr/local/cuda",
        "nccl_verify": True,
        "nccl_tests_build": True,
        "nccl_tests_version": "2.19.6",
        "nccl_tests_source_url": "https://code.example/nccl-tests/v2.19.6.tar.gz",
        "nccl_tests_source_sha256": "85c65a240432a5bd8bf8598ac235582921a96e8a968a8a675d23419478a4ab9c",
        "nccl_tests_dir": "",
        "nccl_tests_binaries": ["all_reduce", "sendrecv"],
        "nccl_tests_cuda_archs": ["9.0"],
        "nccl_tests_cxx": "",
        "nccl_tests_ccache_dir": "",
        "nccl_conf_manage": True,
        "nccl_rdma_userspace": "auto",
        "nccl_conf_path": "/etc/nccl.conf",
        "nccl_conf_settings": {},
    },
    "horovod": {
        "horovod_version": "0.28.1",
        "horovod_framework": "pytorch",
        "horovod_framework_version": "2.13.0",
        "horovod_framework_cuda_variant": "cpu",
        "horovod_extra_frameworks": [],
        "horovod_nccl_link": "SHARED",
        "horovod_pip_trusted_hosts": [],
        "horovod_python_version": "3.11",
        "horovod_patches": ["cxx17"],
        "horovod_build_env": {"HOROVOD_WITH_MPI": "1"},
        "horovod_host_gcc": "",
        "horovod_host_compiler_packages": [],
        "horovod_build_packages_install": True,
        "horovod_cuda_version": "",
        "horovod_nccl_version": "",
        "horovod_cuda_home": "/usr/local/cuda",
        "horovod_nccl_home": "",
        "horovod_with_mpi": "auto",
        "horovod_user": "hvd",
        "horovod_venv": "/opt/gpucluster/venv",
        "horovod_venv_mode": "create",
        "horovod_builder": "",
        "horovod_build_dir": "/var/tmp/gpucluster/horovod-build",
        "horovod_log_dir": "/var/log/gpucluster",
        "horovod_node_cache_dir": "/var/cache/gpucluster",
        "horovod_wheel_cache_dir": "/root/.cache/gpucluster/wheels",
        "horovod_pip_index_url": "",
        "horovod_pip_extra_index_url": [],
        "horovod_pip_find_links": [],
        "horovod_pip_no_index": False,
        "horovod_wheelhouse": "",
        "horovod_framework_index_url": "",
        "horovod_pip_packages": [],
        "horovod_bytecode": "imported",
        "horovod_build_jobs": 2,
        "horovod_build_timeout": 3600,
        "horovod_build_ccache_dir": "",
        "horovod_build_poll_interval": 10,
        "horovod_build_log_lines": 40,
        "horovod_network_interface": "eth0",
        "horovod_env_extra": {},
        "horovod_profile_path": "/etc/profile.d/gpucluster-horovod.sh",
        "horovod_slurm_batch_script": "/opt/gpucluster/gpucluster-horovod.sbatch",
        "horovod_verify": True,
        "horovod_running_jobs": "warn",
        "horovod_running_jobs_wait_s": 1800,
    },
    "horovod_benchmark": {
        "horovod_benchmark_user": "hvd",
        "horovod_benchmark_venv": "/opt/gpucluster/venv",
        "horovod_benchmark_nodes": ["n1", "n2", "n3"],
        "horovod_benchmark_launcher": "n1",
        "horovod_benchmark_default_slots": 1,
        "horovod_benchmark_controller": "gloo",
        "horovod_benchmark_launch_method": "auto",
        "horovod_benchmark_slurm_partition": "",
        "horovod_benchmark_slurm_args": [],
        "horovod_benchmark_ssh_port": 22,
        "horovod_benchmark_container": "",
        "horovod_benchmark_network_interface": "eth0",
        "horovod_benchmark_program_dir": "/opt/gpucluster/benchmark",
        "horovod_benchmark_work_dir": "/var/tmp/gpucluster/benchmark",
        "horovod_benchmark_results_dir": "/work/results",
        "horovod_benchmark_framework": "pytorch",
        "horovod_benchmark_allreduce": True,
        "horovod_benchmark_training": True,
        "horovod_benchmark_peer": True,
        "horovod_benchmark_link": True,
        "horovod_benchmark_plots": True,
        "horovod_benchmark_sizes": "4K,16K,64K,256K,1M,4M,16M,64M,256M",
        "horovod_benchmark_warmup": 3,
        "horovod_benchmark_iters": 20,
        "horovod_benchmark_large_iters": 5,
        "horovod_benchmark_worker_counts": [],
        "horovod_benchmark_model": "auto",
        "horovod_benchmark_batch_size": 32,
        "horovod_benchmark_image_size": 224,
        "horovod_benchmark_steps": 10,
        "horovod_benchmark_warmup_steps": 2,
        "horovod_benchmark_iperf_port": 5201,
        "horovod_benchmark_iperf_seconds": 3,
        "horovod_benchmark_plain_baseline": True,
        "horovod_benchmark_plain_rounds": 3,
        "horovod_benchmark_elastic": True,
        "horovod_benchmark_elastic_min_workers": 1,
        "horovod_benchmark_elastic_seconds": 60,
        "horovod_benchmark_elastic_commit_steps": 10,
        "horovod_benchmark_nccl_tests": "auto",
        "horovod_benchmark_nccl_tests_dir": "/opt/gpucluster/nccl-tests/build",
        "horovod_benchmark_fusion_threshold_mb": 64,
        "horovod_benchmark_cycle_time_ms": 1,
        "horovod_benchmark_autotune": False,
        "horovod_benchmark_poll_us": 500,
        "horovod_benchmark_gloo_iface": "eth0",
        "horovod_benchmark_nccl_socket_ifname": "eth0",
        "horovod_benchmark_env_extra": {},
        "horovod_benchmark_start_timeout": 60,
        "horovod_benchmark_run_timeout": 900,
        "horovod_benchmark_ssh_timeout": 10,
    },
}


def _validate(role, overrides=None, user_set=(), has_gpu=None, slurm=None):
    values = {**BASELINE[role], **(overrides or {})}
    ctx = ic.Context(
        host="n1",
        inventory_hosts=HOSTS,
        distribution="Debian",
        distribution_major_version="12",
        has_gpu=has_gpu,
        user_set=frozenset(user_set) | frozenset(overrides or {}),
        role_vars=_role_vars(role),
        slurm=slurm,
    )
    return ic.validate_role(role, _options(role), values, ctx)


@pytest.mark.parametrize("role", sorted(BASELINE))
def test_baseline_covers_the_spec_and_passes(role):
    assert set(BASELINE[role]) == set(_options(role)), "BASELINE must give every input of the role"
    assert [f.text() for f in _validate(role) if f.level == ic.ERROR] == []


def test_every_role_with_a_spec_has_checks():
    roles = {p.parent.parent.name for p in ROOT.glob("roles/*/meta/argument_specs.yml")} - {"_common"}
    assert roles <= set(ic.ROLE_CHECKS), f"roles without input checks: {roles - set(ic.ROLE_CHECKS)}"


# (role, overrides, the variable named, a phrase of the message)
BAD_INPUTS = [
    # horovod_container
    ("horovod_container", {"horovod_container_ssh_port": 22}, "horovod_container_ssh_port", "host's sshd"),
    ("horovod_container", {"horovod_container_ssh_port": 70000}, "horovod_container_ssh_port", "1..65535"),
    ("horovod_container", {"horovod_container_user": "root"}, "horovod_container_user", "must not be root"),
    ("horovod_container", {"horovod_container_image": "Team/Horovod"}, "horovod_container_image", "repository"),
    ("horovod_container", {"horovod_container_image": "team/horovod:v1"}, "horovod_container_image", "without tag"),
    ("horovod_container", {"horovod_container_base_image": "debian 12"}, "horovod_container_base_image", "image"),
    ("horovod_container", {"horovod_container_name": "-x"}, "horovod_container_name", "container name"),
    ("horovod_container", {"horovod_container_volumes": ["data:/data"]}, "horovod_container_volumes", "bind mount"),
    ("horovod_container", {"horovod_container_volumes": ["/d:/d:rx"]}, "horovod_container_volumes", "bind mount"),
    ("horovod_container", {"horovod_container_builder": "n9"}, "horovod_container_builder", "not a host"),
    ("horovod_container", {"horovod_container_copy_paths": ["opt/x"]}, "horovod_container_copy_paths", "absolute"),
    ("horovod_container", {"horovod_container_gpus": "some"}, "horovod_container_gpus", "auto, all, none"),
    ("horovod_container", {"horovod_container_rdma_memlock": "8M"}, "horovod_container_rdma_memlock", "bytes"),
    ("horovod_container", {"horovod_container_rdma_memlock": -1}, "horovod_container_rdma_memlock", "unlimited"),
    ("horovod_container", {"horovod_container_venv": "venv"}, "horovod_container_venv", "absolute path"),
    ("horovod_container", {"horovod_container_running_jobs": "kill"}, "horovod_container_running_jobs", "refuse, wait"),
    ("horovod", {"horovod_running_jobs": "ignore"}, "horovod_running_jobs", "refuse, wait or warn"),
    ("horovod", {"horovod_running_jobs_wait_s": 0}, "horovod_running_jobs_wait_s", "greater than 0"),
    ("passwordless_ssh", {"passwordless_ssh_running_jobs": ""}, "passwordless_ssh_running_jobs", "running-jobs"),
    ("passwordless_ssh", {"passwordless_ssh_running_jobs_wait_s": "1h"}, "passwordless_ssh_running_jobs_wait_s", "int"),
    # preflight
    ("preflight", {"preflight_training_user": "root"}, "preflight_training_user", "must not be root"),
    ("preflight", {"preflight_training_user": "Bad User"}, "preflight_training_user", "POSIX user name"),
    ("preflight", {"preflight_training_user": "9lives"}, "preflight_training_user", "POSIX user name"),
    ("preflight", {"preflight_ssh_port": 0}, "preflight_ssh_port", "1..65535"),
    ("preflight", {"preflight_ssh_port": 70000}, "preflight_ssh_port", "1..65535"),
    ("preflight", {"preflight_ssh_port": "ssh"}, "preflight_ssh_port", "convert to int"),
    ("preflight", {"preflight_launcher": "n9"}, "preflight_launcher", "not a host of the inventory"),
    ("preflight", {"preflight_hosts": ["n1", "gpu-7"]}, "preflight_hosts", "gpu-7 not in the inventory"),
    ("preflight", {"preflight_framework": "pytorh"}, "preflight_framework", "unknown framework"),
    ("preflight", {"preflight_python": "2.7"}, "preflight_python", "not a Python 3 version"),
    ("preflight", {"preflight_node_health": "strict"}, "preflight_node_health", "not a health policy"),
    ("preflight", {"preflight_expected_gpus": -1}, "preflight_expected_gpus", "not a whole number of GPUs"),
    ("preflight", {"preflight_expected_gpus": "eight"}, "preflight_expected_gpus", "convert to int"),
    ("preflight", {"preflight_dcgm_diag": 5}, "preflight_dcgm_diag", "must be one of"),
    ("preflight", {"preflight_pins": {"cudaa": "12.4"}}, "preflight_pins", "unknown pin cudaa"),
    ("preflight", {"preflight_gather_gpu_facts": "maybe"}, "preflight_gather_gpu_facts", "bool"),
    # docker
    ("docker", {"docker_install_method": "repo"}, "docker_repo_key_sha256", "only with its checksum"),
    ("docker", {"docker_version": "5:27.5.1-1~debian.12~bookworm"}, "docker_version", "repo method only"),
    ("docker", {"docker_registry_mirrors": ["mirror.example"]}, "docker_registry_mirrors", "not a registry mirror URL"),
    ("docker", {"docker_log_opts": {"max-size": ["10m"]}}, "docker_log_opts", "string or number"),
    ("docker", {"docker_users": ["root"]}, "docker_users", "must not be root"),
    ("docker", {"docker_data_root": "var/lib/docker"}, "docker_data_root", "absolute"),
    ("docker", {"docker_install_method": "snap"}, "docker_install_method", "distro, repo"),
    # nvidia_container_toolkit
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_repo_key_sha256": ""},
        "nvidia_container_toolkit_repo_key_sha256",
        "only with its checksum",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_repo_key_sha256": "abc"},
        "nvidia_container_toolkit_repo_key_sha256",
        "64 hex digits",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_version": "1.17"},
        "nvidia_container_toolkit_version",
        "such as 1.17.8-1",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_version": "latest"},
        "nvidia_container_toolkit_version",
        "not an exact package version",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_repo_base_url": "nvidia.github.io/x"},
        "nvidia_container_toolkit_repo_base_url",
        "not an http(s) URL",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_repo_channel": "stable/deb"},
        "nvidia_container_toolkit_repo_channel",
        "stable or experimental",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_packages": ["libnvidia-container1"]},
        "nvidia_container_toolkit_packages",
        "must start with nvidia-container-toolkit",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_packages": ["nvidia-container-toolkit", "Bad Name"]},
        "nvidia_container_toolkit_packages",
        "not Debian package names",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_cdi_spec": "etc/cdi/nvidia.yaml"},
        "nvidia_container_toolkit_cdi_spec",
        "absolute",
    ),
    (
        "nvidia_container_toolkit",
        {"nvidia_container_toolkit_default_runtime": "maybe"},
        "nvidia_container_toolkit_default_runtime",
        "bool",
    ),
    # nvidia_driver
    ("nvidia_driver", {"nvidia_driver_branch": "999"}, "nvidia_driver_branch", "not a known NVIDIA driver branch"),
    ("nvidia_driver", {"nvidia_driver_branch": "580"}, "nvidia_driver_branch", "not what Debian 12 ships (R535)"),
    ("nvidia_driver", {"nvidia_driver_method": "runfile"}, "nvidia_driver_method", "distro, repo"),
    ("nvidia_driver", {"nvidia_driver_reboot": "sometimes"}, "nvidia_driver_reboot", "never, if_needed, always"),
    ("nvidia_driver", {"nvidia_driver_kernel_module": "nouveau"}, "nvidia_driver_kernel_module", "open, proprietary"),
    (
        "nvidia_driver",
        {"nvidia_driver_gpu_facts": {"gpus": [B200], "driver_version": None}},
        "nvidia_driver_kernel_module",
        "cannot drive NVIDIA B200 (Blackwell)",
    ),
    (
        "nvidia_driver",
        {"nvidia_driver_gpu_facts": {"gpus": [H100], "driver_version": None, "secure_boot": True}},
        "nvidia_driver_mok_signing",
        "Secure Boot is on",
    ),
    (
        "nvidia_driver",
        {"nvidia_driver_gpu_facts": {"gpus": [H100], "driver_version": None, "nvswitch_count": 4}},
        "nvidia_driver_method",
        "Fabric Manager",
    ),
    ("nvidia_driver", {"nvidia_driver_method": "repo"}, "nvidia_driver_repo_key_sha256", "with its checksum"),
    ("nvidia_driver", {"nvidia_driver_reboot_throttle": 0}, "nvidia_driver_reboot_throttle", ">= 1"),
    ("nvidia_driver", {"nvidia_driver_reboot_timeout": 0}, "nvidia_driver_reboot_timeout", "greater than 0"),
    # cuda
    ("cuda", {"cuda_install_method": "runfile"}, "cuda_install_method", "repo, distro, redist"),
    ("cuda", {"cuda_version": "12"}, "cuda_version", "major.minor"),
    ("cuda", {"cuda_version": "12.x"}, "cuda_version", "not a version"),
    ("cuda", {"cuda_version": "12.7"}, "cuda_version", "set cuda_version to the full release"),
    ("cuda", {"cuda_redist_components": []}, "cuda_redist_components", "cuda_redist_components is empty"),
    ("cuda", {"cuda_redist_components": ["CUDA RT"]}, "cuda_redist_components", "not manifest component names"),
    ("cuda", {"cuda_redist_manifest_sha256": "abc"}, "cuda_redist_manifest_sha256", "not a sha256"),
    ("cuda", {"cuda_install_method": "repo"}, "cuda_repo_key_sha256", "sha256 of NVIDIA's repository signing key"),
    ("cuda", {"cuda_redist_base_url": "mirror/redist"}, "cuda_redist_base_url", "not an http(s) URL"),
    ("cuda", {"cuda_prefix": "usr/local"}, "cuda_prefix", "absolute path"),
    # cudnn
    ("cudnn", {"cudnn_install_method": "distro"}, "cudnn_install_method", "installer script that downloads cuDNN"),
    ("cudnn", {"cudnn_install_method": "conda"}, "cudnn_install_method", "pip, redist, repo, distro"),
    ("cudnn", {"cudnn_venv": "venv"}, "cudnn_venv", "absolute path"),
    ("cudnn", {"cudnn_version": "9.11.0.98", "cudnn_cuda_version": "11.8"}, "cudnn_cuda_version", "no CUDA 11 build"),
    ("cudnn", {"cudnn_install_method": "redist", "cudnn_version": "9.1"}, "cudnn_version", "name a release"),
    ("cudnn", {"cudnn_install_method": "repo"}, "cudnn_repo_key_sha256", "sha256 of NVIDIA's repository signing key"),
    ("cudnn", {"cudnn_redist_base_url": "ftp://x/y"}, "cudnn_redist_base_url", "not an http(s) URL"),
    ("cudnn", {"cudnn_redist_manifest_sha256": "abc"}, "cudnn_redist_manifest_sha256", "not a sha256"),
    ("cudnn", {"cudnn_prefix": "local"}, "cudnn_prefix", "absolute path"),
    # nccl
    ("nccl", {"nccl_conf_settings": {"NCCL_DEBUG": "INFO"}}, "nccl_conf_settings", "in a job's environment"),
    ("nccl", {"nccl_conf_settings": {"ib_hca": "mlx5_0"}}, "nccl_conf_settings", "not an NCCL variable"),
    ("nccl", {"nccl_install_method": "conda"}, "nccl_install_method", "pip, distro, repo"),
    ("nccl", {"nccl_version": "2.21"}, "nccl_version", "three components"),
    ("nccl", {"nccl_version": "2.22.3", "nccl_cuda_version": "11.8"}, "nccl_version", "cu11 wheels exist for NCCL"),
    ("nccl", {"nccl_cuda_version": "10.2"}, "nccl_cuda_version", "no nvidia-nccl wheel is published for CUDA 10"),
    ("nccl", {"nccl_install_method": "repo"}, "nccl_repo_key_sha256", "sha256 of NVIDIA's repository signing key"),
    ("nccl", {"nccl_pip_index_url": "pypi.mirror/simple"}, "nccl_pip_index_url", "not an http(s) URL"),
    ("nccl", {"nccl_prefix": "opt/gpucluster"}, "nccl_prefix", "absolute path"),
    ("nccl", {"nccl_replace": "sometimes"}, "nccl_replace", "bool"),
    ("nccl", {"nccl_tests_source_sha256": ""}, "nccl_tests_source_sha256", "sha256sum of the archive at https://"),
    ("nccl", {"nccl_tests_source_url": "code.example/x.tgz"}, "nccl_tests_source_url", "not a URL get_url"),
    ("nccl", {"nccl_tests_version": "latest"}, "nccl_tests_version", "not an nccl-tests release"),
    ("nccl", {"nccl_tests_binaries": ["allreduce"]}, "nccl_tests_binaries", "not nccl-tests programs"),
    ("nccl", {"nccl_tests_cuda_archs": ["sm_90"]}, "nccl_tests_cuda_archs", "not compute capabilities"),
    ("nccl", {"nccl_tests_dir": "nccl-tests"}, "nccl_tests_dir", "absolute path"),
    # passwordless_ssh
    ("passwordless_ssh", {"passwordless_ssh_uid": -5}, "passwordless_ssh_uid", "cannot be negative"),
    ("passwordless_ssh", {"passwordless_ssh_uid": 0}, "passwordless_ssh_uid", "root"),
    ("passwordless_ssh", {"passwordless_ssh_gid": -1}, "passwordless_ssh_gid", "cannot be negative"),
    ("passwordless_ssh", {"passwordless_ssh_user": "root"}, "passwordless_ssh_user", "must not be root"),
    ("passwordless_ssh", {"passwordless_ssh_group": "Grp!"}, "passwordless_ssh_group", "POSIX group name"),
    ("passwordless_ssh", {"passwordless_ssh_home": "home/hvd"}, "passwordless_ssh_home", "absolute path"),
    ("passwordless_ssh", {"passwordless_ssh_port": 70000}, "passwordless_ssh_port", "1..65535"),
    ("passwordless_ssh", {"passwordless_ssh_port": 2222}, "passwordless_ssh_port", "passwordless_ssh_extra_port"),
    ("passwordless_ssh", {"passwordless_ssh_extra_port": -1}, "passwordless_ssh_extra_port", "1..65535"),
    ("passwordless_ssh", {"passwordless_ssh_verify": "mesh"}, "passwordless_ssh_verify", "ring, all_pairs, none"),
    ("passwordless_ssh", {"passwordless_ssh_launcher": "head"}, "passwordless_ssh_launcher", "inventory"),
    ("passwordless_ssh", {"passwordless_ssh_extra_names": ["n1 ib"]}, "passwordless_ssh_extra_names", "host name"),
    # openmpi
    ("openmpi", {"openmpi_version": "4.1.6"}, "openmpi_version", "cannot honour it"),
    ("openmpi", {"openmpi_source_checksum": "sha256:ab"}, "openmpi_source_checksum", "cannot honour it"),
    (
        "openmpi",
        {"openmpi_install_method": "source", "openmpi_version": "3.1.3", "openmpi_source_checksum": "sha256:ab"},
        "openmpi_version",
        "known bad",
    ),
    ("openmpi", {"openmpi_install_method": "source"}, "openmpi_source_checksum", "needs the checksum"),
    (
        "openmpi",
        {"openmpi_install_method": "source", "openmpi_source_checksum": "sha256:ab", "openmpi_source_url": "x.zip"},
        "openmpi_source_url",
        "archive",
    ),
    ("openmpi", {"openmpi_install_method": "spack"}, "openmpi_install_method", "distro, source"),
    ("openmpi", {"openmpi_prefix": "opt/openmpi"}, "openmpi_prefix", "absolute path"),
    ("openmpi", {"openmpi_build_timeout": 0}, "openmpi_build_timeout", "greater than 0"),
    ("openmpi", {"openmpi_build_ccache_dir": "ccache"}, "openmpi_build_ccache_dir", "not an absolute path"),
    ("horovod", {"horovod_build_ccache_dir": "relative/ccache"}, "horovod_build_ccache_dir", "not an absolute path"),
    ("openmpi", {"openmpi_install_dev": "compute"}, "openmpi_install_dev", "builder, all, none"),
    ("openmpi", {"openmpi_builder": "builder9"}, "openmpi_builder", "inventory"),
    ("openmpi", {"openmpi_user": "root"}, "openmpi_user", "must not be root"),
    # horovod
    ("horovod", {"horovod_venv": "relative/venv"}, "horovod_venv", "absolute path"),
    ("horovod", {"horovod_slurm_batch_script": "job.sbatch"}, "horovod_slurm_batch_script", "absolute path"),
    ("horovod", {"horovod_build_jobs": 0}, "horovod_build_jobs", "greater than 0"),
    ("horovod", {"horovod_build_jobs": "many"}, "horovod_build_jobs", "convert to int"),
    ("horovod", {"horovod_build_timeout": -1}, "horovod_build_timeout", "greater than 0"),
    ("horovod", {"horovod_patches": ["no-such-patch"]}, "horovod_patches", "no such patch"),
    ("horovod", {"horovod_version": "0.99.0"}, "horovod_version", "no sdist checksum"),
    ("horovod", {"horovod_framework": "jax"}, "horovod_framework", "pytorch, tensorflow, mxnet"),
    ("horovod", {"horovod_python_version": "3"}, "horovod_python_version", "Python 3"),
    ("horovod", {"horovod_with_mpi": "yes please"}, "horovod_with_mpi", "auto, true or false"),
    ("horovod", {"horovod_builder": "n7"}, "horovod_builder", "inventory"),
    ("horovod", {"horovod_user": "root"}, "horovod_user", "must not be root"),
    ("horovod", {"horovod_env_extra": {"NCCL DEBUG": "INFO"}}, "horovod_env_extra", "environment variable"),
    ("horovod", {"horovod_pip_no_index": True}, "horovod_pip_no_index", "no index"),
    ("horovod", {"horovod_nccl_home": "nccl"}, "horovod_nccl_home", "absolute path"),
    ("horovod", {"horovod_cuda_version": "12.4"}, "horovod_framework_cuda_variant", "CPU build of the framework"),
    ("horovod", {"horovod_extra_frameworks": [{"name": "jax", "version": "0.4"}]}, "horovod_extra_frameworks", "jax"),
    ("horovod", {"horovod_extra_frameworks": [{"name": "pytorch"}]}, "horovod_extra_frameworks", "no version"),
    (
        "horovod",
        {"horovod_extra_frameworks": [{"name": "pytorch", "version": "2.13.0"}]},
        "horovod_extra_frameworks",
        "resolved framework",
    ),
    ("horovod", {"horovod_nccl_version": "2.21.5"}, "horovod_nccl_version", "need a CUDA build"),
    # horovod_benchmark
    ("horovod_benchmark", {"horovod_benchmark_sizes": "4K,lots"}, "horovod_benchmark_sizes", "'lots' is not a size"),
    ("horovod_benchmark", {"horovod_benchmark_sizes": "0K"}, "horovod_benchmark_sizes", "not a size"),
    ("horovod_benchmark", {"horovod_benchmark_iters": 0}, "horovod_benchmark_iters", "greater than 0"),
    ("horovod_benchmark", {"horovod_benchmark_plain_rounds": 0}, "horovod_benchmark_plain_rounds", "greater than 0"),
    ("horovod_benchmark", {"horovod_benchmark_warmup": -1}, "horovod_benchmark_warmup", ">= 0"),
    ("horovod_benchmark", {"horovod_benchmark_launcher": "laptop"}, "horovod_benchmark_launcher", "inventory"),
    ("horovod_benchmark", {"horovod_benchmark_nodes": ["n1", "n4"]}, "horovod_benchmark_nodes", "n4 not in"),
    ("horovod_benchmark", {"horovod_benchmark_nodes": []}, "horovod_benchmark_nodes", "names no host"),
    ("horovod_benchmark", {"horovod_benchmark_worker_counts": [0, 2]}, "horovod_benchmark_worker_counts", "count"),
    ("horovod_benchmark", {"horovod_benchmark_worker_counts": [2, 2]}, "horovod_benchmark_worker_counts", "twice"),
    ("horovod_benchmark", {"horovod_benchmark_controller": "ucx"}, "horovod_benchmark_controller", "gloo, mpi"),
    (
        "horovod_benchmark",
        {"horovod_benchmark_launch_method": "sbatch"},
        "horovod_benchmark_launch_method",
        "auto, horovodrun, slurm",
    ),
    ("horovod_benchmark", {"horovod_benchmark_nccl_tests": "always"}, "horovod_benchmark_nccl_tests", "auto, true"),
    ("horovod_benchmark", {"horovod_benchmark_nccl_tests_dir": "nccl"}, "horovod_benchmark_nccl_tests_dir", "absolute"),
    ("horovod_benchmark", {"horovod_benchmark_plain_baseline": "often"}, "horovod_benchmark_plain_baseline", "bool"),
    ("horovod_benchmark", {"horovod_benchmark_elastic_seconds": 0}, "horovod_benchmark_elastic_seconds", "> 0"),
    ("horovod_benchmark", {"horovod_benchmark_elastic_min_workers": 0}, "horovod_benchmark_elastic_min_workers", "> 0"),
    (
        "horovod_benchmark",
        {"horovod_benchmark_framework": "tensorflow"},
        "horovod_benchmark_elastic",
        "trains with PyTorch, and the framework is tensorflow",
    ),
    ("horovod_benchmark", {"horovod_benchmark_iperf_port": 0}, "horovod_benchmark_iperf_port", "1..65535"),
    ("horovod_benchmark", {"horovod_benchmark_run_timeout": 0}, "horovod_benchmark_run_timeout", "greater than 0"),
    ("horovod_benchmark", {"horovod_benchmark_warmup_steps": 10}, "horovod_benchmark_warmup_steps", "fewer"),
    ("horovod_benchmark", {"horovod_benchmark_work_dir": "bench"}, "horovod_benchmark_work_dir", "absolute path"),
    ("horovod_benchmark", {"horovod_benchmark_model": "vgg"}, "horovod_benchmark_model", "auto, resnet50"),
    ("horovod_benchmark", {"horovod_benchmark_cycle_time_ms": 0}, "horovod_benchmark_cycle_time_ms", "than 0"),
]


def test_the_table_is_large_and_covers_every_role():
    assert len(BAD_INPUTS) >= 40
    assert {case[0] for case in BAD_INPUTS} == set(BASELINE)


@pytest.mark.parametrize(
    ("role", "overrides", "variable", "phrase"),
    BAD_INPUTS,
    ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(BAD_INPUTS)],
)
def test_bad_input_is_refused_naming_the_variable(role, overrides, variable, phrase):
    errors = [f for f in _validate(role, overrides) if f.level == ic.ERROR]
    named = [f for f in errors if f.variable == variable]
    assert named, f"{variable} not refused; got {[f.text() for f in errors]}"
    assert any(phrase in f.text() for f in named), [f.text() for f in named]
    # Only the bad input is refused: the message names the one that is wrong.
    assert {f.variable for f in errors} == {variable}, [f.text() for f in errors]


@pytest.mark.parametrize(("slots", "ok"), [(4, True), ("8", True), (None, True), (0, False), ("two", False)])
def test_horovod_slots_host_variable(slots, ok):
    ctx = ic.Context(host="n2", inventory_hosts=HOSTS)
    findings = ic.validate_role(
        "horovod_benchmark",
        _options("horovod_benchmark"),
        BASELINE["horovod_benchmark"],
        ctx,
        host_inputs={"horovod_slots": slots},
    )
    assert (findings == []) is ok, [f.text() for f in findings]
    if not ok:
        assert findings[0].text().startswith(f"horovod_slots={slots!r}: not a worker count for n2")


def test_finding_text_names_variable_value_and_valid():
    (finding,) = _validate("horovod", {"horovod_build_jobs": 0})
    assert (
        finding.text() == "horovod_build_jobs=0: must be greater than 0 (parallel compile jobs). Valid: a number > 0."
    )


def test_patch_without_edits_for_the_version_is_refused():
    ctx = ic.Context(role_vars={"_horovod_source_patches": {"cxx17": {"0.28.1": []}}, "_horovod_sdist_sha256": {}})
    values = {**BASELINE["horovod"], "horovod_version": "0.27.0"}
    findings = ic.check_role("horovod", values, ctx)
    assert [f.text() for f in findings] == [
        "horovod_patches='cxx17': the patch has no edits for Horovod 0.27.0. "
        "Valid: Horovod 0.28.1 (roles/horovod/vars/patches.yml)."
    ]


def test_driver_checks_only_where_a_driver_is_installed():
    # Where no driver is installed only what exists nowhere is refused (issue 31: a branch '999' or a flavour
    # 'closed' passed on a host without a GPU); what needs the host (the OS's branch, the GPUs) is not judged.
    no_gpu = {"nvidia_driver_branch": "999", "nvidia_driver_gpu_facts": {"gpus": []}}
    assert [f.variable for f in _validate("nvidia_driver", no_gpu)] == ["nvidia_driver_branch"]
    assert _validate("nvidia_driver", {**no_gpu, "nvidia_driver_branch": "580"}) == []  # not Debian 12's, but unused
    assert [f.variable for f in _validate("nvidia_driver", {**no_gpu, "nvidia_driver_force": True})] == [
        "nvidia_driver_branch"
    ]
    # A loaded driver the stack accepts is left alone, so its branch is not questioned either.
    loaded = {"nvidia_driver_branch": "580", "nvidia_driver_gpu_facts": {"gpus": [H100], "driver_version": "580.95.05"}}
    assert _validate("nvidia_driver", loaded) == []
    assert [f.variable for f in _validate("nvidia_driver", {**loaded, "nvidia_driver_upgrade": True})] == [
        "nvidia_driver_branch"
    ]


def test_driver_never_reboots_the_control_node():
    ctx = ic.Context(
        host="localhost",
        distribution="Debian",
        distribution_major_version="12",
        control_node=True,
        role_vars=_role_vars("nvidia_driver"),
    )
    findings = ic.validate_role("nvidia_driver", _options("nvidia_driver"), BASELINE["nvidia_driver"], ctx)
    assert [f.variable for f in findings] == ["nvidia_driver_reboot"]
    assert "never reboots the control node" in findings[0].text()


def test_openmpi_version_left_to_the_stack_is_not_refused_with_distro():
    # The role's default (the stack's choice) is not the user's: only a version the user set is refused.
    assert _validate("openmpi", {}) == []
    assert [f.variable for f in _validate("openmpi", {"openmpi_version": "4.1.4"})] == ["openmpi_version"]


def test_openmpi_install_dev_with_a_source_build_is_warned_about_only_when_set():
    source = {"openmpi_install_method": "source", "openmpi_source_checksum": "sha256:a"}
    assert _validate("openmpi", source) == []
    findings = _validate("openmpi", {**source, "openmpi_install_dev": "all"})
    assert [(f.variable, f.level) for f in findings] == [("openmpi_install_dev", ic.WARNING)]
    assert "development files included" in findings[0].text()
    assert _validate("openmpi", {"openmpi_install_dev": "all"}) == []


@pytest.mark.parametrize(
    ("role", "overrides", "variable"),
    [
        ("preflight", {"preflight_pins": {"cuda": "12.4", "horovod": "0.28.1"}}, "preflight_pins"),
        ("openmpi", {"openmpi_with_cuda": True}, "openmpi_with_cuda"),
        (
            "openmpi",
            {"openmpi_with_cuda": True, "openmpi_install_method": "source", "openmpi_source_checksum": "sha256:a"},
            "openmpi_with_cuda",
        ),
        (
            "horovod",
            {"horovod_cuda_version": "12.4", "horovod_framework_cuda_variant": "cu124"},
            "horovod_cuda_version",
        ),
    ],
)
def test_inputs_that_cannot_apply_on_a_cpu_host_are_warned_about(role, overrides, variable):
    findings = _validate(role, overrides, has_gpu=False)
    assert [f.variable for f in findings if f.level == ic.WARNING] == [variable]
    assert [f for f in findings if f.level == ic.ERROR] == []


def test_gpu_pins_are_not_warned_about_on_gpu_hosts_or_without_gpu_facts():
    for has_gpu in (True, None):
        assert _validate("preflight", {"preflight_pins": {"cuda": "12.4"}}, has_gpu=has_gpu) == []


@pytest.mark.parametrize(
    ("text", "sizes"),
    [("4K", [4096]), ("1M,2m", [1048576, 2097152]), ("1G", [1 << 30]), ("512", [512]), (" 64KiB ", [65536])],
)
def test_parse_sizes(text, sizes):
    assert ic.parse_sizes(text) == sizes


@pytest.mark.parametrize("text", ["", "4K,,8K", "-1K", "1T", "K", None, 5])
def test_parse_sizes_refuses(text):
    with pytest.raises(ValueError):
        ic.parse_sizes(text)


@pytest.mark.parametrize(
    ("name", "ok"),
    [("hvd", True), ("_svc", True), ("a-b_c9", True), ("root", False), ("Hvd", False), ("1abc", False), ("", False)],
)
def test_user_names(name, ok):
    assert (ic.user_name_problem(name) == "") is ok


def test_spec_variable_prefers_the_longest_name():
    names = ["horovod_benchmark_iters", "horovod_benchmark_large_iters"]
    msg = "argument 'horovod_benchmark_large_iters' is of type str"
    assert ic.spec_variable(msg, names) == "horovod_benchmark_large_iters"
    assert ic.spec_variable("nothing named", names) == ""


def _validate_on(role, os_facts, overrides=None, has_gpu=None):
    values = {**BASELINE[role], **(overrides or {})}
    ctx = ic.Context(
        host="n1",
        inventory_hosts=HOSTS,
        has_gpu=has_gpu,
        user_set=frozenset(overrides or {}),
        role_vars=_role_vars(role, os_facts),
        **os_facts,
    )
    return ic.validate_role(role, _options(role), values, ctx)


DEBIAN12 = {"os_family": "Debian", "distribution": "Debian", "distribution_major_version": "12"}
DEBIAN13 = {"os_family": "Debian", "distribution": "Debian", "distribution_major_version": "13"}
RHEL9 = {"os_family": "RedHat", "distribution": "Rocky", "distribution_major_version": "9"}


@pytest.mark.parametrize(
    ("role", "os_facts", "overrides", "variable", "phrase"),
    [
        ("nccl", DEBIAN12, {"nccl_install_method": "distro"}, "nccl_install_method", "debian12 packages no NCCL"),
        (
            "nccl",
            DEBIAN13,
            {"nccl_install_method": "distro"},
            "nccl_version",
            "debian13 packages NCCL 2.22.3 (libnccl2 2.22.3-1-1), not 2.21.5",
        ),
        (
            "nccl",
            RHEL9,
            {"nccl_install_method": "distro"},
            "nccl_install_method",
            "installs the distro method with apt",
        ),
        (
            "docker",
            RHEL9,
            {},
            "docker_install_method",
            "not available on Rocky 9",
        ),
        (
            "nvidia_driver",
            RHEL9,
            {"nvidia_driver_method": "distro", "nvidia_driver_branch": "580"},
            "nvidia_driver_method",
            "'distro' is not available on Rocky 9; valid here: repo",
        ),
    ],
)
def test_os_dependent_refusals(role, os_facts, overrides, variable, phrase):
    errors = [f for f in _validate_on(role, os_facts, overrides) if f.level == ic.ERROR]
    assert any(f.variable == variable and phrase in f.text() for f in errors), [f.text() for f in errors]


def test_repo_driver_on_rhel9_passes():
    overrides = {
        "nvidia_driver_method": "repo",
        "nvidia_driver_branch": "580",
        "nvidia_driver_kernel_module": "open",
        "nvidia_driver_repo_key_sha256": "a" * 64,
    }
    assert _validate_on("nvidia_driver", RHEL9, overrides) == []


def test_distro_cuda_on_debian12_and_13_passes():
    assert _validate_on("cuda", DEBIAN12, {"cuda_install_method": "distro", "cuda_version": "11.8"}) == []
    assert _validate_on("cuda", DEBIAN13, {"cuda_install_method": "distro", "cuda_version": "12.4"}) == []


def test_distro_nccl_on_debian13_passes():
    overrides = {"nccl_install_method": "distro", "nccl_version": "2.22.3"}
    assert _validate_on("nccl", DEBIAN13, overrides) == []


@pytest.mark.parametrize(
    ("role", "overrides"),
    [
        ("cuda", {"cuda_install_method": "repo"}),
        ("cudnn", {"cudnn_install_method": "distro"}),
        ("nccl", {"nccl_install_method": "distro"}),
    ],
)
def test_gpu_library_inputs_are_not_refused_on_hosts_the_role_skips(role, overrides):
    # A CPU node of the cluster: the role skips it, so inputs it would refuse on a GPU host only warn that it is
    # skipped; with <role>_force the host gets the library and the inputs are refused.
    findings = _validate_on(role, DEBIAN12, overrides, has_gpu=False)
    assert [(f.variable, f.level) for f in findings] == [(f"{role}_force", ic.WARNING)]
    forced = _validate_on(role, DEBIAN12, {**overrides, f"{role}_force": True}, has_gpu=False)
    assert [f for f in forced if f.level == ic.ERROR]


def test_container_toolkit_inputs_are_not_refused_on_hosts_the_role_skips():
    # A CPU node: the role skips it, so a missing key checksum only warns that the inputs are unused; forced (an
    # image builder) or on a GPU host the key's sha256 is required.
    bad = {"nvidia_container_toolkit_repo_key_sha256": ""}
    findings = _validate_on("nvidia_container_toolkit", DEBIAN12, bad, has_gpu=False)
    assert [(f.variable, f.level) for f in findings] == [("nvidia_container_toolkit_force", ic.WARNING)]
    for overrides, has_gpu in (({"nvidia_container_toolkit_force": True}, False), ({}, True), ({}, None)):
        errors = [
            f
            for f in _validate_on("nvidia_container_toolkit", DEBIAN12, {**bad, **overrides}, has_gpu)
            if f.level == ic.ERROR
        ]
        assert [f.variable for f in errors] == ["nvidia_container_toolkit_repo_key_sha256"], (overrides, has_gpu)


def test_gpu_library_roles_warn_that_inputs_set_for_a_gpu_less_host_are_unused():
    assert _validate_on("nccl", DEBIAN12, has_gpu=False) == []  # nothing set: the role just skips the host
    findings = _validate_on("nccl", DEBIAN12, {"nccl_version": "2.22.3"}, has_gpu=False)
    assert [(f.variable, f.level) for f in findings] == [("nccl_force", ic.WARNING)]
    assert "nccl_version unused" in findings[0].text()
    assert _validate_on("nccl", DEBIAN12, {"nccl_force": True}, has_gpu=False) == []


def test_horovod_with_cuda_13_needs_the_capability_list():
    """nvcc 13 dropped compute capabilities below 7.5, which Horovod's default list has."""
    cu130 = {"horovod_cuda_version": "13.0", "horovod_framework_cuda_variant": "cu130"}
    findings = _validate("horovod", dict(cu130, horovod_build_env={}))
    assert [(f.variable, f.level) for f in findings] == [("horovod_build_env", ic.ERROR)]
    assert "below 7.5" in findings[0].text() and "'90' for H100" in findings[0].text()
    env = {"HOROVOD_GPU_OPERATIONS": "NCCL", "HOROVOD_BUILD_CUDA_CC_LIST": "90"}
    assert _validate("horovod", dict(cu130, horovod_build_env=env)) == []
    cu128 = {"horovod_cuda_version": "12.8", "horovod_framework_cuda_variant": "cu128", "horovod_build_env": {}}
    assert _validate("horovod", cu128) == []
    assert _validate("horovod", {"horovod_cuda_version": "", "horovod_build_env": {}}) == []


def test_horovod_on_a_gpu_host_needs_gpu_operations():
    """A GPU host whose build would have no CUDA: refused (training would silently run on the CPU)."""
    findings = _validate("horovod", {"horovod_cuda_version": ""}, has_gpu=True)
    assert [(f.variable, f.level) for f in findings] == [("horovod_cuda_version", ic.ERROR)]
    assert "silently run on the CPU" in findings[0].text()
    assert (
        _validate("horovod", {"horovod_cuda_version": "12.4", "horovod_framework_cuda_variant": "cu124"}, has_gpu=True)
        == []
    )
    # the user's own GPU build environment counts; CPU hosts and hosts without gpu_facts are not concerned
    assert _validate("horovod", {"horovod_build_env": {"HOROVOD_GPU_OPERATIONS": "NCCL"}}, has_gpu=True) == []
    assert _validate("horovod", {"horovod_cuda_version": ""}, has_gpu=False) == []
    assert _validate("horovod", {"horovod_cuda_version": ""}, has_gpu=None) == []


def test_an_expected_gpu_count_with_the_health_check_off_is_warned_about():
    findings = _validate("preflight", {"preflight_node_health": "off", "preflight_expected_gpus": 8})
    assert [(f.variable, f.level) for f in findings] == [("preflight_expected_gpus", ic.WARNING)]
    assert "preflight_node_health (gpucluster_node_health) is off" in findings[0].text()
    assert _validate("preflight", {"preflight_node_health": "warn", "preflight_expected_gpus": 8}) == []


def test_dcgm_diag_with_the_health_check_off_is_warned_about():
    findings = _validate("preflight", {"preflight_node_health": "off", "preflight_dcgm_diag": 1})
    assert [(f.variable, f.level) for f in findings] == [("preflight_dcgm_diag", ic.WARNING)]
    assert _validate("preflight", {"preflight_node_health": "fail", "preflight_dcgm_diag": 1}) == []
    assert _validate("preflight", {"preflight_node_health": "off"}) == []


def test_driver_components_set_for_the_repo_method_are_named():
    key = {"nvidia_driver_repo_key_sha256": "0" * 64}
    findings = _validate(
        "nvidia_driver", {**key, "nvidia_driver_method": "repo", "nvidia_driver_components": "compute"}, has_gpu=True
    )
    assert [(f.variable, f.level) for f in findings] == [("nvidia_driver_components", ic.WARNING)]
    # the default, not set by the user, and the distro method: nothing to say
    assert _validate("nvidia_driver", {**key, "nvidia_driver_method": "repo"}, has_gpu=True) == []
    assert _validate("nvidia_driver", {"nvidia_driver_components": "full"}, has_gpu=True) == []


def test_elastic_settings_without_the_elastic_run_are_named():
    off = {"horovod_benchmark_elastic": False, "horovod_benchmark_elastic_seconds": 120}
    findings = _validate("horovod_benchmark", off)
    assert [(f.variable, f.level) for f in findings] == [("horovod_benchmark_elastic_seconds", ic.WARNING)]
    assert "no elastic run happens" in findings[0].text()
    # with the elastic run, or not set by the user: nothing to say
    assert _validate("horovod_benchmark", {**off, "horovod_benchmark_elastic": True}) == []
    assert _validate("horovod_benchmark", {"horovod_benchmark_elastic": False}) == []


def test_plain_rounds_without_the_one_worker_comparison_are_named():
    off = {"horovod_benchmark_plain_baseline": False, "horovod_benchmark_plain_rounds": 5}
    findings = _validate("horovod_benchmark", off)
    assert [(f.variable, f.level) for f in findings] == [("horovod_benchmark_plain_rounds", ic.WARNING)]
    assert "horovod_benchmark_plain_baseline false, so no one-worker comparison runs" in findings[0].text()
    no_training = {"horovod_benchmark_training": False, "horovod_benchmark_plain_rounds": 5}
    assert "horovod_benchmark_training false" in _validate("horovod_benchmark", no_training)[0].text()
    # with the comparison, or the rounds left at their default: nothing to say
    assert _validate("horovod_benchmark", {**off, "horovod_benchmark_plain_baseline": True}) == []
    assert _validate("horovod_benchmark", {"horovod_benchmark_plain_baseline": False}) == []


def test_a_memlock_limit_for_containers_without_the_fabric_is_named():
    never = {"horovod_container_rdma": "never", "horovod_container_rdma_memlock": 8388608}
    findings = _validate("horovod_container", never)
    assert [(f.variable, f.level) for f in findings] == [("horovod_container_rdma_memlock", ic.WARNING)]
    assert "horovod_container_rdma is never" in findings[0].text()
    # where the containers may get the fabric, or the limit left at its default: nothing to say
    assert _validate("horovod_container", {**never, "horovod_container_rdma": "auto"}) == []
    assert _validate("horovod_container", {"horovod_container_rdma": "never"}) == []


def test_the_toolkit_s_recommends_setting_without_the_distro_method_is_named():
    findings = _validate("cuda", {"cuda_install_method": "redist", "cuda_distro_install_recommends": True})
    assert [(f.variable, f.level) for f in findings] == [("cuda_distro_install_recommends", ic.WARNING)]
    assert "cuda_install_method is redist" in findings[0].text()
    distro = {"cuda_install_method": "distro", "cuda_version": "11.8", "cuda_distro_install_recommends": True}
    assert _validate("cuda", distro) == []
    assert _validate("cuda", {"cuda_install_method": "redist"}) == []


def test_the_pmix_choice_with_the_distribution_s_open_mpi_is_refused():
    findings = _validate("openmpi", {"openmpi_install_method": "distro", "openmpi_pmix": "external"})
    assert [(f.variable, f.level) for f in findings] == [("openmpi_pmix", ic.ERROR)]
    assert "openmpi_install_method is distro" in findings[0].text()
    assert _validate("openmpi", {"openmpi_install_method": "distro"}) == []


@pytest.mark.parametrize("role", ["horovod", "horovod_container", "passwordless_ssh"])
def test_a_wait_time_with_a_policy_that_does_not_wait_is_named(role):
    findings = _validate(role, {f"{role}_running_jobs": "refuse", f"{role}_running_jobs_wait_s": 600})
    assert [(f.variable, f.level) for f in findings] == [(f"{role}_running_jobs_wait_s", ic.WARNING)]
    assert _validate(role, {f"{role}_running_jobs": "wait", f"{role}_running_jobs_wait_s": 600}) == []
    assert _validate(role, {f"{role}_running_jobs": "refuse"}) == []


def test_a_batch_script_set_where_no_slurm_was_found_is_warned_about_by_name():
    script = {"horovod_slurm_batch_script": "/shared/jobs/horovod.sbatch"}
    # found no Slurm, or never looked: the script is not written, and the user is told so
    for slurm, why in ((False, "found no Slurm there"), (None, "did not read Slurm (preflight_detect_slurm)")):
        (finding,) = _validate("horovod", script, slurm=slurm)
        assert (finding.variable, finding.level) == ("horovod_slurm_batch_script", ic.WARNING)
        assert finding.problem == f"not written on n1: the first play {why}"
    # a node of the site's Slurm, the role's default left alone, or none asked for: nothing to say
    assert _validate("horovod", script, slurm=True) == []
    assert _validate("horovod", slurm=False) == []
    assert _validate("horovod", {"horovod_slurm_batch_script": ""}, slurm=False) == []


def test_the_slurm_jobs_settings_without_slurm_as_the_launcher_are_named():
    findings = _validate(
        "horovod_benchmark",
        {"horovod_benchmark_launch_method": "horovodrun", "horovod_benchmark_slurm_partition": "gpu"},
    )
    assert [(f.variable, f.level) for f in findings] == [("horovod_benchmark_slurm_partition", ic.WARNING)]
    assert "horovod_benchmark_launch_method is horovodrun" in findings[0].text()
    # slurm uses them, and auto may (the first play decides): nothing to say
    for method in ("slurm", "auto"):
        values = {"horovod_benchmark_launch_method": method, "horovod_benchmark_slurm_args": ["--qos=high"]}
        assert _validate("horovod_benchmark", values) == []
