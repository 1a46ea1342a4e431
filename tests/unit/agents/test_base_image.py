"""The two recipes of the tasks' base image install the same Debian packages."""

import re

from ...conftest import REPO


def test_offline_and_registry_recipes_install_the_same_packages():
    setup = (REPO / "tools" / "setup-agents.sh").read_text()
    offline = set(re.search(r"^PACKAGES=(\S+)$", setup, re.M).group(1).split(","))
    dockerfile = (REPO / "docker" / "md-base" / "Dockerfile").read_text().replace("\\\n", " ")
    install = re.search(r"apt-get install -y --no-install-recommends([^&]+)&&", dockerfile).group(1)
    assert offline == set(install.split()) and "tmux" in offline
