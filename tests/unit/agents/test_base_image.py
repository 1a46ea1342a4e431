"""The two recipes of each tasks' base image (offline debootstrap, registry Dockerfile) install the same packages."""

import re

import pytest

from ...conftest import REPO

IMAGES = {
    "md-base": "PACKAGES",
    "gromacs-base": "GROMACS_PACKAGES",
    "analysis-base": "ANALYSIS_PACKAGES",
    "lammps-base": "LAMMPS_PACKAGES",
}


def offline_packages(variable):
    setup = (REPO / "tools" / "setup-agents.sh").read_text()
    value = re.search(rf"^{variable}=(\S+)$", setup, re.M).group(1)
    value = value.replace("$PACKAGES", re.search(r"^PACKAGES=(\S+)$", setup, re.M).group(1))
    return set(value.split(","))


@pytest.mark.parametrize("image", sorted(IMAGES))
def test_offline_and_registry_recipes_install_the_same_packages(image):
    offline = offline_packages(IMAGES[image])
    dockerfile = (REPO / "docker" / image / "Dockerfile").read_text().replace("\\\n", " ")
    install = re.search(r"apt-get install -y --no-install-recommends([^&]+)&&", dockerfile).group(1)
    assert offline == set(install.split()) and {"tmux", "asciinema"} <= offline


def test_every_task_builds_from_one_of_the_base_images():
    setup = (REPO / "tools" / "setup-agents.sh").read_text()
    images = {
        re.search(rf"^{name}=\$\{{\w+:-(\S+)\}}$", setup, re.M).group(1)
        for name in ("IMAGE", "GROMACS_IMAGE", "ANALYSIS_IMAGE", "CHEM_IMAGE", "LAMMPS_IMAGE")
    }
    bases = {
        re.search(r"^FROM (\S+)", p.read_text(), re.M).group(1)
        for p in (REPO / "tasks").glob("*/environment/Dockerfile")
    }
    assert bases == images


@pytest.mark.parametrize("image", ["analysis-base", "chem-base", "gromacs-base"])
def test_wheels_are_pinned_by_hash(image):
    lines = [
        l
        for l in (REPO / "docker" / image / "requirements.txt").read_text().splitlines()
        if l.strip() and not l.startswith("#")
    ]
    assert lines and all(re.match(r"^[\w.-]+==[\w.]+ --hash=sha256:[0-9a-f]{64}$", l) for l in lines)


def test_the_layer_image_builds_on_the_analysis_image_that_setup_agents_builds():
    setup = (REPO / "tools" / "setup-agents.sh").read_text()
    dockerfile = (REPO / "docker" / "chem-base" / "Dockerfile").read_text()
    analysis = re.search(r"^ANALYSIS_IMAGE=\$\{\w+:-(\S+)\}$", setup, re.M).group(1)
    assert re.search(r"^FROM (\S+)", dockerfile, re.M).group(1) == analysis
    assert 'build_layer_image "$CHEM_IMAGE" docker/chem-base' in setup


def test_the_lammps_image_adds_the_library_link_its_python_module_loads_in_both_recipes():
    setup = (REPO / "tools" / "setup-agents.sh").read_text()
    dockerfile = (REPO / "docker" / "lammps-base" / "Dockerfile").read_text()
    link = re.search(r'^LAMMPS_LINK="(.+)"$', setup, re.M).group(1)
    assert link in dockerfile and '"$LAMMPS_LINK"' in setup
