"""nvidia_driver decisions: per-OS package selection (on the role's real vars files), target version, input
checks and the reboot / module-mismatch decision."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from ansible_collections.gpucluster.horovod.plugins.filter import nvidia_driver as filters
from ansible_collections.gpucluster.horovod.plugins.plugin_utils import compat
from ansible_collections.gpucluster.horovod.plugins.plugin_utils.nvidia_driver import decisions as logic

VARS = Path(__file__).resolve().parents[5] / "roles" / "nvidia_driver" / "vars"


def os_vars(family: str, distribution: str, major: str) -> dict:
    """The cascade _common/os_vars.yml loads: default, family, distribution, distribution-major."""
    out: dict = {}
    for name in dict.fromkeys(["default", family, distribution, f"{distribution}-{major}"]):
        path = VARS / f"{name}.yml"
        if path.exists():
            out.update(yaml.safe_load(path.read_text()) or {})
    return out


DEB12 = os_vars("Debian", "Debian", "12")
DEB13 = os_vars("Debian", "Debian", "13")
UBU24 = os_vars("Debian", "Ubuntu", "24")
RHEL9 = os_vars("RedHat", "RedHat", "9")


# --- per-OS package selection -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "osv, method, branch, module, version, server, names, install_first",
    [
        (
            DEB12,
            "distro",
            535,
            "proprietary",
            "535.261.03-1",
            False,
            ["nvidia-driver", "nvidia-smi", "firmware-nvidia-gsp", "nvidia-kernel-dkms", "nvidia-persistenced"],
            "nvidia-driver=535.261.03-1",
        ),
        (
            DEB12,
            "distro",
            535,
            "open",
            "535.261.03-1",
            False,
            ["nvidia-driver", "nvidia-smi", "firmware-nvidia-gsp", "nvidia-open-kernel-dkms", "nvidia-persistenced"],
            "nvidia-driver=535.261.03-1",
        ),
        (
            DEB13,
            "distro",
            550,
            "open",
            "550.163.01-2",
            False,
            ["nvidia-driver", "nvidia-smi", "firmware-nvidia-gsp", "nvidia-open-kernel-dkms", "nvidia-persistenced"],
            "nvidia-driver=550.163.01-2",
        ),
        (DEB12, "repo", 580, "open", "580.95.05-1", False, ["nvidia-open-580"], "nvidia-open-580=580.95.05-1"),
        (DEB12, "repo", 535, "proprietary", None, False, ["cuda-drivers-535"], "cuda-drivers-535"),
        (
            UBU24,
            "distro",
            570,
            "open",
            None,
            True,
            ["nvidia-driver-570-server-open", "nvidia-dkms-570-server-open", "nvidia-utils-570-server"],
            "nvidia-driver-570-server-open",
        ),
        (
            UBU24,
            "distro",
            535,
            "proprietary",
            None,
            False,
            ["nvidia-driver-535", "nvidia-dkms-535", "nvidia-utils-535"],
            "nvidia-driver-535",
        ),
        (
            RHEL9,
            "repo",
            550,
            "proprietary",
            "550.163.01-1.el9",
            False,
            ["cuda-drivers"],
            "cuda-drivers-550.163.01-1.el9",
        ),
        (
            RHEL9,
            "repo",
            580,
            "open",
            None,
            False,
            ["nvidia-open"],
            "nvidia-open",
        ),
    ],
)
def test_select_packages_per_os(  # noqa: PLR0917 - one pytest parameter per table column
    osv, method, branch, module, version, server, names, install_first
):
    got = logic.select_packages(osv["_nvidia_driver_packages"], method, branch, module, version, server=server)
    assert got["names"] == names
    assert got["install"][0] == install_first
    assert got["hold"] == names


def test_debian_open_pins_every_versioned_package_to_one_version():
    got = logic.select_packages(DEB12["_nvidia_driver_packages"], "distro", 535, "open", "535.261.03-1")
    pinned = {p["package"]: p["version"] for p in got["pins"]}
    # nvidia-driver depends on "nvidia-kernel-dkms (= v) | nvidia-open-kernel-dkms ...": one transaction, one version.
    assert pinned == dict.fromkeys(
        ["nvidia-driver", "nvidia-smi", "firmware-nvidia-gsp", "nvidia-open-kernel-dkms"], "535.261.03-1"
    )
    # nvidia-persistenced has its own version line in Debian (535.171.04-1~deb12u1): neither pinned nor versioned.
    assert "nvidia-persistenced" in got["install"]


COMPUTE_LIBS = ["libcuda1", "libnvidia-ml1", "libnvidia-ptxjitcompiler1", "libnvidia-nvvm4", "libnvidia-cfg1"]


@pytest.mark.parametrize(
    "osv, branch, module, names",
    [
        # Debian 12 (R535): no libnvidia-gpucomp yet; every library at the driver's version with the module package.
        (
            DEB12,
            535,
            "proprietary",
            [*COMPUTE_LIBS, "nvidia-smi", "firmware-nvidia-gsp", "nvidia-kernel-dkms", "nvidia-persistenced"],
        ),
        # Debian 13 (R550): the PTX JIT compiler loads libnvidia-gpucomp from R545 on.
        (
            DEB13,
            550,
            "open",
            [
                *COMPUTE_LIBS,
                "libnvidia-gpucomp",
                "nvidia-smi",
                "firmware-nvidia-gsp",
                "nvidia-open-kernel-dkms",
                "nvidia-persistenced",
            ],
        ),
        (UBU24, 570, "open", ["nvidia-headless-570-open", "nvidia-utils-570"]),
    ],
)
def test_compute_components_leave_out_the_desktop_part(osv, branch, module, names):
    got = logic.select_packages(osv["_nvidia_driver_packages"], "distro", branch, module, components="compute")
    assert got["names"] == names
    assert not {"nvidia-driver", "xserver-xorg-video-nvidia", "nvidia-driver-libs"} & set(got["names"])
    full = logic.select_packages(osv["_nvidia_driver_packages"], "distro", branch, module, components="full")
    assert got["desktop_probe"] == full["names"][0]


def test_compute_components_pin_and_hold_every_library_at_the_driver_version():
    got = logic.select_packages(
        DEB12["_nvidia_driver_packages"], "distro", 535, "proprietary", "535.261.03-1", components="compute"
    )
    assert {p["package"] for p in got["pins"]} == {n for n in got["names"] if n != "nvidia-persistenced"}
    assert "libcuda1=535.261.03-1" in got["install"]
    assert got["hold"] == got["names"]


def test_an_installed_desktop_set_is_kept_under_compute():
    kept = logic.select_packages(
        DEB12["_nvidia_driver_packages"],
        "distro",
        535,
        "open",
        "535.261.03-1",
        components="compute",
        desktop_installed=True,
    )
    assert "nvidia-driver=535.261.03-1" in kept["install"]


def test_components_without_a_compute_set_and_unknown_components():
    # NVIDIA's repository: its metapackage whatever components says; RHEL has no compute set in the table.
    repo = logic.select_packages(DEB12["_nvidia_driver_packages"], "repo", 580, "open", components="compute")
    assert repo["names"] == ["nvidia-open-580"]
    assert repo["desktop_probe"] is None
    with pytest.raises(ValueError, match="components 'headless' unknown; valid: compute, full"):
        logic.select_packages(DEB12["_nvidia_driver_packages"], "distro", 535, "open", components="headless")


def test_rhel_repo_packages_module_streams_and_no_apt_pins():
    # NVIDIA's driver installation guide: RHEL 8/9 "dnf module enable nvidia-driver:<branch>-open" + nvidia-open,
    # or "nvidia-driver:<branch>-dkms" + cuda-drivers for the proprietary module.
    prop = logic.select_packages(RHEL9["_nvidia_driver_packages"], "repo", 550, "proprietary", "550.163.01-1.el9")
    opn = logic.select_packages(RHEL9["_nvidia_driver_packages"], "repo", 580, "open")
    assert prop["module_stream"] == "nvidia-driver:550-dkms"
    assert opn["module_stream"] == "nvidia-driver:580-open"
    assert prop["names"] == ["cuda-drivers"] and opn["names"] == ["nvidia-open"]
    # dnf's name-version form; no apt pins (the lock is dnf versionlock), the packages are held.
    assert prop["install"] == ["cuda-drivers-550.163.01-1.el9"]
    assert prop["pins"] == [] and prop["hold"] == ["cuda-drivers"]
    assert prop["version_probe"] == "cuda-drivers"
    table = RHEL9["_nvidia_driver_packages"]
    fm = logic.select_packages(table, "repo", 580, "open", "580.95.05-1.el9", fabricmanager=True)
    assert fm["install"] == ["nvidia-open-580.95.05-1.el9", "cuda-drivers-fabricmanager-580-580.95.05-1.el9"]


def test_rhel_has_only_the_repo_method_and_nvidia_directories():
    assert RHEL9["_nvidia_driver_methods"] == ["repo"]  # RHEL ships no NVIDIA driver
    with pytest.raises(ValueError, match="no package data"):
        logic.select_packages(RHEL9["_nvidia_driver_packages"], "distro", 580, "open")
    # Templated per major (rhel8, rhel9, rhel10); the RPM repositories' key differs from the apt ones'.
    assert RHEL9["_nvidia_driver_repo_os"] == "rhel{{ ansible_facts['distribution_major_version'] }}"
    assert RHEL9["_nvidia_driver_repo_key_file"] == "D42D0685.pub"
    # Modules up to RHEL 9 only (RHEL 10 has none: the versionlock alone keeps the branch).
    assert "<= 9" in RHEL9["_nvidia_driver_dnf_modules"]
    assert RHEL9["_nvidia_driver_repo_dkms_module"] == {"proprietary": "nvidia", "open": "nvidia-open"}


@pytest.mark.parametrize(
    "versions, newest",
    [
        (["580.82.07-1.el9", "580.95.05-1.el9", "580.65.06-1.el9"], "580.95.05-1.el9"),
        (["580.9.1-1.el10", "580.10.1-1.el10"], "580.10.1-1.el10"),  # by number, not by text
        (["", "Last metadata expiration check", "575.57.08-1.el9"], "575.57.08-1.el9"),
        ([], None),
    ],
)
def test_rpm_newest(versions, newest):
    assert logic.rpm_newest(versions) == newest


RPM_QA = """\
nvidia-open 580.95.05
kmod-nvidia-open-dkms 580.95.05
nvidia-driver 580.95.05
nvidia-driver-libs 580.95.05
nvidia-driver-libs 580.95.05
nvidia-persistenced 580.95.05
cuda-drivers-fabricmanager-580 580.95.05
nvidia-fabricmanager-580 580.95.05
dkms 3.1.5
nvidia-container-toolkit 1.17.8
cuda-toolkit-13-0 13.0.2
kernel-devel 5.14.0
"""


def test_rpm_lock_names_are_the_drivers_packages_of_that_version():
    names = logic.rpm_lock_names(RPM_QA, "580.95.05-1.el9")
    assert names == [
        "cuda-drivers-fabricmanager-580",
        "kmod-nvidia-open-dkms",
        "nvidia-driver",
        "nvidia-driver-libs",
        "nvidia-fabricmanager-580",
        "nvidia-open",
        "nvidia-persistenced",
    ]
    # Other NVIDIA software with its own version line (the container toolkit, CUDA) is not locked with the driver.
    assert "nvidia-container-toolkit" not in names and "cuda-toolkit-13-0" not in names
    assert logic.rpm_lock_names(RPM_QA, "570.172.08") == []
    assert logic.rpm_lock_names(RPM_QA, "") == []


def test_rpm_filters():
    assert filters.nvidia_driver_rpm_newest("580.82.07-1.el9\n580.95.05-1.el9\n") == "580.95.05-1.el9"
    assert filters.nvidia_driver_rpm_newest([]) == ""
    assert "nvidia-open" in filters.nvidia_driver_rpm_lock_names(RPM_QA, "580.95.05")


def test_distro_branch_per_release():
    assert DEB12["_nvidia_driver_distro_branch"] == 535
    assert DEB13["_nvidia_driver_distro_branch"] == 550
    assert UBU24["_nvidia_driver_distro_branch"] is None


@pytest.mark.parametrize(
    "method, module, err",
    [("snap", "open", "method 'snap' unknown"), ("distro", "nouveau", "kernel_module 'nouveau' unknown")],
)
def test_select_packages_rejects_bad_values(method, module, err):
    with pytest.raises(ValueError, match=err):
        logic.select_packages(DEB12["_nvidia_driver_packages"], method, 535, module)


def test_select_packages_without_data_for_the_method():
    with pytest.raises(ValueError, match="no package data"):
        logic.select_packages({"distro": {}}, "repo", 535, "open")


# --- versions -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "requested, installed, candidate, upgrade, expected",
    [
        ("", None, "535.261.03-1", False, "535.261.03-1"),  # fresh host: the candidate
        ("", "535.247.01-1", "535.261.03-1", False, "535.247.01-1"),  # installed and held: stays
        ("", "535.247.01-1", "535.261.03-1", True, "535.261.03-1"),  # explicit upgrade moves it
        ("535.216.01-1", "535.247.01-1", "535.261.03-1", False, "535.216.01-1"),  # exact version wins
        ("", None, None, False, None),
    ],
)
def test_target_version(requested, installed, candidate, upgrade, expected):
    assert logic.target_version(requested or None, installed, candidate, upgrade) == expected


@pytest.mark.parametrize(
    "version, branch, upstream",
    [("535.261.03-1", 535, "535.261.03"), ("1:550.163.01-2", 550, "550.163.01"), ("", None, None), ("x", None, None)],
)
def test_version_parsing(version, branch, upstream):
    assert logic.version_branch(version) == branch
    assert logic.upstream_version(version) == upstream


def test_version_problem():
    assert logic.version_problem("n1", "550.163.01-2", "550.54.15", "12.4") == ""
    msg = logic.version_problem("n1", "535.261.03-1", "560.35.05", "12.6")
    assert msg.startswith("n1: the driver to install is 535.261.03-1, but CUDA 12.6 needs driver >= 560.35.05")
    assert "nvidia_driver_method: repo" in msg


# --- input checks -------------------------------------------------------------------------------------------

TABLES = compat.load_tables()
KNOWN = [r["branch"] for r in TABLES["cuda_driver"]["branches"]]


def _problems(**kw):
    args = {
        "method": "distro",
        "supported_methods": ["distro", "repo"],
        "os_name": "Debian 12",
        "branch": "535",
        "known_branches": KNOWN,
        "distro_branch": 535,
        "kernel_module": "proprietary",
        "arch_of": lambda g: compat.gpu_arch(g, tables=TABLES),
    }
    args.update(kw)
    return logic.input_problems("n1", **args)


def test_good_input_has_no_problems():
    assert _problems() == []
    assert _problems(gpus=[{"name": "NVIDIA H100 80GB HBM3"}], kernel_module="open") == []


@pytest.mark.parametrize(
    "kw, expected",
    [
        ({"branch": "999"}, "n1: nvidia_driver_branch '999' is not a known NVIDIA driver branch; known: 384, 390"),
        ({"branch": "abc"}, "nvidia_driver_branch 'abc' is not a known"),
        ({"branch": ""}, "nvidia_driver_branch is empty"),
        ({"branch": "580"}, "nvidia_driver_branch 580 is not what Debian 12 ships (R535)"),
        ({"method": "repo", "supported_methods": []}, "nvidia_driver_method 'repo' is not available on Debian 12"),
        (
            {"gpus": [{"name": "NVIDIA B200"}]},
            "nvidia_driver_kernel_module proprietary cannot drive NVIDIA B200 (Blackwell)",
        ),
        (
            {"gpus": [{"name": "Tesla V100-SXM2-32GB"}], "kernel_module": "open"},
            "nvidia_driver_kernel_module open does not support Tesla V100-SXM2-32GB (Volta",
        ),
        ({"method": "repo", "branch": "470", "kernel_module": "open"}, "open needs branch >= R515"),
        ({"kernel_module": "nouveau"}, "nvidia_driver_kernel_module 'nouveau' is not valid"),
        ({"reboot": "sometimes"}, "nvidia_driver_reboot 'sometimes' is not valid; valid: never, if_needed, always"),
        ({"control_node": True}, "is the control node (local connection) and nvidia_driver_reboot is if_needed"),
        ({"reboot_throttle": 0}, "nvidia_driver_reboot_throttle 0 must be an integer >= 1"),
        ({"secure_boot": True}, "Secure Boot is on and the DKMS-built NVIDIA module would be unsigned"),
    ],
)
def test_bad_input_is_named(kw, expected):
    problems = _problems(**kw)
    assert any(expected in p for p in problems), problems
    assert all(p.startswith("n1: ") for p in problems)


def test_repo_method_allows_any_known_branch_and_mok_signing_allows_secure_boot():
    assert _problems(method="repo", branch="580") == []
    assert _problems(secure_boot=True, mok_signing=True) == []
    assert _problems(control_node=True, reboot="never") == []


def test_unknown_gpu_models_are_not_a_driver_problem():
    assert _problems(gpus=[{"name": "Some Future GPU", "pci_id": "10de:ffff"}]) == []


# --- reboot / module mismatch -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, action, reboot_required",
    [
        ({"gpu_present": False}, "none", False),
        ({"loaded_version": "535.261.03"}, "none", False),
        ({"loaded_version": None}, "load", False),
        ({"loaded_version": "535.247.01"}, "reload", False),
        ({"loaded_version": "535.247.01", "gpu_in_use": True}, "reboot", True),
        ({"loaded_version": "535.247.01", "gpu_in_use": True, "policy": "never"}, "fail", True),
        ({"loaded_version": "535.247.01", "gpu_in_use": True, "control_node": True}, "fail", True),
        ({"nouveau_loaded": True, "loaded_version": None}, "reboot", True),
        ({"nouveau_loaded": True, "loaded_version": None, "policy": "never"}, "fail", True),
        ({"policy": "always", "changed": True, "loaded_version": "535.261.03"}, "reboot", True),
        ({"policy": "always", "changed": False, "loaded_version": "535.261.03"}, "none", False),
        ({"installed_version": ""}, "none", False),
    ],
)
def test_reboot_decision(kw, action, reboot_required):
    args = {
        "policy": "if_needed",
        "gpu_present": True,
        "installed_version": "535.261.03-1",
        "loaded_version": "535.261.03",
    }
    args.update(kw)
    got = logic.reboot_decision(**args)
    assert (got["action"], got["reboot_required"]) == (action, reboot_required), got


def test_mismatch_that_cannot_reboot_names_the_commands():
    got = logic.reboot_decision(
        policy="never",
        gpu_present=True,
        installed_version="550.163.01-2",
        loaded_version="535.261.03",
        gpu_in_use=True,
    )
    assert "Driver/library version mismatch" in got["reason"]
    assert "fuser -v /dev/nvidia*" in got["command"] and "modprobe nvidia" in got["command"]


def _run_reload(tmp_path, loaded, refuse=()):
    """Run the reload command as the shell module does (/bin/sh: dash here) with stand-in systemctl/modprobe that log
    their calls; /proc/modules from ``loaded``."""
    tmp_path.mkdir(exist_ok=True)
    modules = tmp_path / "modules"
    modules.write_text("".join(f"{m} 1 0 - Live 0x0\n" for m in loaded) + "nvidiafb_other 1 0 - Live 0x0\n")
    log = tmp_path / "log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # Fabric Manager is not enabled here (no NVSwitch): is-enabled says no.
    (bin_dir / "systemctl").write_text(
        f'#!/bin/sh\necho "systemctl $*" >> {log}\n[ "$1 $3" = "is-enabled nvidia-fabricmanager" ] && exit 1\nexit 0\n'
    )
    refuse_test = " ".join(refuse)
    (bin_dir / "modprobe").write_text(
        f'#!/bin/sh\necho "modprobe $*" >> {log}\n'
        f'if [ "$1" = -r ]; then for x in {refuse_test}; do [ "$2" = "$x" ] && exit 1; done; '
        f'grep -q "^$2 " {modules} || exit 1; fi\nexit 0\n'
    )
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    cmd = logic.reload_command(str(modules))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    res = subprocess.run(["sh", "-c", cmd], env=env, capture_output=True, text=True, check=False)
    return res.returncode, log.read_text().splitlines(), res.stderr


def test_reload_command_is_the_decisions():
    got = logic.reboot_decision(
        policy="if_needed", gpu_present=True, installed_version="550.163.01-2", loaded_version="535.261.03"
    )
    assert got["action"] == "reload" and got["command"] == logic.reload_command()


def test_reload_unloads_only_the_loaded_modules_users_first_and_loads_them_back(tmp_path):
    # nvidia_peermem and nvidia_drm are not loaded: modprobe -r of either would fail (the old command's bug).
    rc, calls, _err = _run_reload(tmp_path, ["nvidia_uvm", "nvidia_modeset", "nvidia"])
    assert rc == 0
    assert calls == [
        "systemctl stop nvidia-persistenced nvidia-fabricmanager",
        "modprobe -r nvidia_uvm",
        "modprobe -r nvidia_modeset",
        "modprobe -r nvidia",
        "modprobe nvidia",
        "modprobe nvidia_modeset",
        "modprobe nvidia_uvm",
    ]


def test_reload_with_no_module_loaded_loads_nvidia(tmp_path):
    rc, calls, _err = _run_reload(tmp_path, [])
    assert rc == 0 and calls[1:] == ["modprobe nvidia"]


def test_a_module_that_cannot_be_unloaded_fails_the_reload_and_loads_back_what_was_removed(tmp_path):
    rc, calls, err = _run_reload(
        tmp_path, ["nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"], refuse=["nvidia_drm"]
    )
    assert rc == 1
    assert "cannot unload nvidia_drm" in err
    assert calls[1:] == [
        "modprobe -r nvidia_uvm",
        "modprobe -r nvidia_drm",
        "modprobe nvidia",
        "modprobe nvidia_uvm",
        # the daemons the reload stopped are started again where they are enabled
        "systemctl is-enabled --quiet nvidia-persistenced",
        "systemctl start nvidia-persistenced",
        "systemctl is-enabled --quiet nvidia-fabricmanager",
    ]


def test_reload_finds_debians_renamed_modules(tmp_path):
    # Debian's nvidia-current*.ko (open flavour: nvidia-current-open*.ko) are listed under these kernel names.
    rc, calls, _err = _run_reload(
        tmp_path, ["nvidia_current_uvm", "nvidia_current_drm", "nvidia_current_modeset", "nvidia_current"]
    )
    assert rc == 0
    assert calls[1:] == [
        "modprobe -r nvidia_current_uvm",
        "modprobe -r nvidia_current_drm",
        "modprobe -r nvidia_current_modeset",
        "modprobe -r nvidia_current",
        "modprobe nvidia",
        "modprobe nvidia_current_modeset",
        "modprobe nvidia_current_drm",
        "modprobe nvidia_current_uvm",
    ]
    rc, calls, _err = _run_reload(tmp_path / "open", ["nvidia_current_open_uvm", "nvidia_current_open"])
    assert rc == 0 and calls[1:3] == ["modprobe -r nvidia_current_open_uvm", "modprobe -r nvidia_current_open"]


DPKG = """\
cuda-drivers-550 550.144.03-1 hi
nvidia-driver-550 550.144.03-1 ii
libnvidia-compute-550:amd64 550.144.03-0ubuntu1 ii
libnvidia-compute-550:i386 550.144.03-0ubuntu1 ii
libcuda1:amd64 550.144.03-1 ii
nvidia-dkms-550 550.144.03-1 ii
nvidia-driver-535 535.183.01-1 rc
nvidia-container-toolkit 1.17.8-1 ii
cuda-toolkit-12-4 12.4.1-1 ii
openssh-server 1:9.2p1-2 ii
nvidia-fabricmanager-550 550.163.01-1 ii
"""


def test_deb_lock_pins_are_the_installed_drivers_packages_of_that_version():
    assert logic.deb_lock_pins(DPKG, "550.144.03-1", ["cuda-drivers-550=550.144.03-1"]) == [
        {"package": "libcuda1", "version": "550.144.03-1"},
        {"package": "libnvidia-compute-550", "version": "550.144.03-0ubuntu1"},
        {"package": "nvidia-dkms-550", "version": "550.144.03-1"},
        {"package": "nvidia-driver-550", "version": "550.144.03-1"},
    ]
    assert logic.deb_lock_pins(DPKG, "", []) == []
    assert logic.deb_lock_pins(DPKG, "570.195.03-1") == []
    assert filters.nvidia_driver_deb_lock_pins(DPKG, "550.163.01-1") == [
        {"package": "nvidia-fabricmanager-550", "version": "550.163.01-1"}
    ]


def test_deb_release_names_are_the_held_driver_packages_of_other_versions():
    held = DPKG.replace("nvidia-driver-550 550.144.03-1 ii", "nvidia-driver-550 550.144.03-1 hi").replace(
        "nvidia-container-toolkit 1.17.8-1 ii", "nvidia-container-toolkit 1.17.8-1 hi"
    )
    # Moving to 550.163.01 (or to another branch): the 550.144.03 holds go, the container toolkit's stays.
    assert logic.deb_release_names(held, "550.163.01-1") == ["cuda-drivers-550", "nvidia-driver-550"]
    assert filters.nvidia_driver_deb_release_names(held, "570.195.03-1") == ["cuda-drivers-550", "nvidia-driver-550"]
    # Staying: nothing to release; removed-but-configured (rc) packages are not held.
    assert logic.deb_release_names(held, "550.144.03-1") == []


DKMS3 = """\
nvidia-current/535.261.03, 6.1.0-28-amd64, x86_64: installed
nvidia-current/535.261.03, 6.1.0-30-amd64, x86_64: built
nvidia-current-open/535.261.03, 6.1.0-31-amd64, x86_64: installed
nvidia-current/535.261.03: added
"""
DKMS2 = """\
nvidia, 535.183.01, 5.15.0-91-generic, x86_64: installed
nvidia, 535.183.01, 5.15.0-94-generic, x86_64: installed (WARNING! Diff between built and installed module!)
virtualbox, 6.1.50, 5.15.0-91-generic, x86_64: installed
"""


def test_dkms_installed_kernels_reads_dkms_3_and_dkms_2():
    assert logic.dkms_installed_kernels(DKMS3, "nvidia-current") == ["6.1.0-28-amd64"]
    assert logic.dkms_installed_kernels(DKMS3) == ["6.1.0-28-amd64", "6.1.0-31-amd64"]
    # DKMS 2 (Ubuntu 22.04): the second field is the version, not the kernel.
    assert logic.dkms_installed_kernels(DKMS2, "nvidia") == ["5.15.0-91-generic", "5.15.0-94-generic"]
    assert filters.nvidia_driver_dkms_installed("", "nvidia") == []


def test_filters_wrap_the_logic():
    assert filters.nvidia_driver_target_version("", "535.247.01-1", "535.261.03-1", True) == "535.261.03-1"
    assert filters.nvidia_driver_version_problem("535.261.03-1", "n1", "550.54.15", "12.4").startswith("n1: ")
    got = filters.nvidia_driver_packages(DEB13["_nvidia_driver_packages"], "distro", 550, "open", "550.163.01-2")
    assert "nvidia-open-kernel-dkms=550.163.01-2" in got["install"]
    assert (
        filters.nvidia_driver_reboot_decision(
            {"policy": "never", "gpu_present": False, "installed_version": "", "loaded_version": None}
        )["action"]
        == "none"
    )


@pytest.mark.parametrize(
    "osv, method, module, probe",
    [
        (DEB12, "distro", "proprietary", "nvidia-kernel-dkms"),
        (DEB12, "distro", "open", "nvidia-open-kernel-dkms"),
        (DEB12, "repo", "open", "nvidia-open-550"),
        (UBU24, "distro", "open", "nvidia-driver-550-open"),
    ],
)
def test_the_version_is_read_from_the_module_package_not_persistenced(osv, method, module, probe):
    # Debian's nvidia-persistenced has its own version (535.171.04-1~deb12u1): reading it pinned the driver to a
    # version that does not exist (found by the nvidia_driver_default scenario).
    assert logic.select_packages(osv["_nvidia_driver_packages"], method, 550, module)["version_probe"] == probe


def test_fabricmanager_at_the_driver_version_where_the_method_has_it():
    got = logic.select_packages(
        DEB12["_nvidia_driver_packages"], "repo", 550, "open", "550.163.01-1", fabricmanager=True
    )
    assert "nvidia-fabricmanager-550=550.163.01-1" in got["install"]
    assert {"package": "nvidia-fabricmanager-550", "version": "550.163.01-1"} in got["pins"]
    with pytest.raises(ValueError, match="no Fabric Manager package"):
        logic.select_packages(DEB12["_nvidia_driver_packages"], "distro", 535, "open", fabricmanager=True)


def test_nvswitch_host_needs_a_method_with_fabricmanager():
    problems = _problems(nvswitch_count=4, fabricmanager_methods=DEB12["_nvidia_driver_fabricmanager_methods"])
    assert any("has 4 NVSwitch devices" in p and "nvidia_driver_method: repo" in p for p in problems), problems
    assert _problems(method="repo", branch="550", nvswitch_count=4, fabricmanager_methods=["repo"]) == []


# --- the driver's own daemons and other holders of the GPU -------------------------------------------------------
HOLDERS = """\
812 nvidia-persiste
913 nv-fabricmanage
4242 python3
4300 nvidia-smi
"""


def test_own_daemons_are_not_holders():
    assert logic.parse_gpu_holders(HOLDERS) == ["4242 python3", "4300 nvidia-smi"]
    assert logic.parse_gpu_holders("812 nvidia-persiste\n913 nv-fabricmanage\n") == []
    assert logic.parse_gpu_holders("") == []


def test_reload_possible_when_only_persistenced_holds_the_gpu():
    got = logic.reboot_decision(
        policy="never",
        gpu_present=True,
        installed_version="580.95.05-1",
        loaded_version="550.54.15",
        gpu_holders=logic.parse_gpu_holders("812 nvidia-persiste\n"),
    )
    assert got["action"] == "reload" and got["reboot_required"] is False
    assert got["command"].startswith("systemctl stop nvidia-persistenced nvidia-fabricmanager")


def test_holders_are_named_when_they_block_the_reload():
    got = logic.reboot_decision(
        policy="never",
        gpu_present=True,
        installed_version="580.95.05-1",
        loaded_version="550.54.15",
        gpu_holders=logic.parse_gpu_holders(HOLDERS),
    )
    assert got["action"] == "fail"
    assert "(4242 python3, 4300 nvidia-smi)" in got["reason"]
    assert "run the play again" in got["command"]
    rebooted = logic.reboot_decision(
        policy="if_needed",
        gpu_present=True,
        installed_version="580.95.05-1",
        loaded_version="550.54.15",
        gpu_holders=["4242 python3"],
    )
    assert rebooted["action"] == "reboot" and "4242 python3" in rebooted["reason"]


# --- whether the role works on a host ----------------------------------------------------------------------------
H100 = {"gpus": [{"name": "NVIDIA H100 80GB HBM3", "pci_id": "10de:2330"}], "driver_version": "580.95.05"}


@pytest.mark.parametrize(
    ("facts", "stack", "kwargs", "active", "says"),
    [
        ({"gpus": []}, {}, {}, False, "found no NVIDIA GPU"),
        ({"gpus": []}, {}, {"force": True}, True, "no NVIDIA driver is loaded"),
        (dict(H100, driver_version=None), {}, {}, True, "no NVIDIA driver is loaded"),
        (H100, {"driver_upgrade_required": False}, {}, False, "driver 580.95.05 already satisfies the stack"),
        (H100, {}, {}, False, "already satisfies"),
        # The role alone (no first play): the loaded driver against nvidia_driver_min.
        (H100, {}, {"minimum": "590.44.01"}, True, "does not satisfy the stack (it needs 590.44.01)"),
        (H100, {}, {"minimum": "575.51.03"}, False, "already satisfies"),
        (H100, {"driver_min": "590.44.01"}, {}, True, "it needs 590.44.01"),
        # The first play's answer wins over the minimum.
        (H100, {"driver_upgrade_required": False}, {"minimum": "590.44.01"}, False, "already satisfies"),
        (H100, {"driver_upgrade_required": True, "driver_min": "590.44"}, {}, True, "it needs 590.44"),
        (H100, {}, {"upgrade": True}, True, "nvidia_driver_upgrade is true"),
        (H100, {}, {"version": "580.105.08"}, True, "asks for 580.105.08"),
        (
            dict(
                H100,
                driver_version="550.54.15",
                driver_mismatch=True,
                nvml_error="Failed to initialize NVML: Driver/library version mismatch",
                nvml_library_version="580.95",
            ),
            {"driver_upgrade_required": False},
            {},
            True,
            "the loaded module 550.54.15 and the installed userspace 580.95 differ",
        ),
    ],
)
def test_driver_action(facts, stack, kwargs, active, says):
    got = logic.driver_action(facts, stack, **kwargs)
    assert got["active"] is active
    assert says in got["reason"]


def test_only_ubuntu_22_pins_dkms_to_one_mok_pair():
    """Ubuntu 22.04's DKMS 2.8 signs only with update-secureboot-policy's pair; DKMS 3 is told the role's pair."""
    assert os_vars("Debian", "Ubuntu", "22")["_nvidia_driver_dkms_mok_pair"] == [
        "/var/lib/shim-signed/mok/MOK.priv",
        "/var/lib/shim-signed/mok/MOK.der",
    ]
    for osv in (DEB12, DEB13, UBU24):
        assert "_nvidia_driver_dkms_mok_pair" not in osv


def test_a_failed_reload_becomes_a_reboot_or_a_failure_by_policy():
    base = {"gpu_present": True, "installed_version": "550.163.01-2", "loaded_version": "535.261.03"}
    got = logic.reboot_decision(policy="if_needed", reload_error="cannot unload nvidia_drm", **base)
    assert got["action"] == "reboot" and got["reboot_required"] is True
    assert got["reason"] == (
        "loaded module 535.261.03 differs from the installed userspace 550.163.01 (Driver/library version mismatch);"
        " the reload failed (cannot unload nvidia_drm)"
    )
    got = logic.reboot_decision(policy="never", reload_error="rc 1", **base)
    assert got["action"] == "fail" and got["reason"].endswith("a reboot is needed but nvidia_driver_reboot is never")
    got = logic.reboot_decision(policy="if_needed", control_node=True, reload_error="rc 1", **base)
    assert got["action"] == "fail" and "the control node is never rebooted" in got["reason"]
    # no module loaded and modprobe nvidia failed
    got = logic.reboot_decision(
        policy="if_needed", gpu_present=True, installed_version="550.163.01-2", loaded_version=None, reload_error="rc 1"
    )
    assert got["action"] == "reboot" and "no NVIDIA module loaded" in got["reason"]
