"""Structural checks of the repaired west.cfg with PyYAML (WESTPA's own loader accepts python/name tags)."""

import os
import sys

import yaml
from verifykit import main

SIM = "/app/inputs/sim"


class Loader(yaml.SafeLoader):
    pass


Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda loader, suffix, node: "python/name:" + suffix)


def differences(before, after, ignored, path=()):
    """Where two parsed YAML structures differ, outside the ``ignored`` key paths."""
    if path in ignored:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after), key=str):
            if key not in before or key not in after:
                found.append("/".join(map(str, path + (key,))) + (" added" if key in after else " removed"))
            else:
                found += differences(before[key], after[key], ignored, path + (key,))
        return found
    return [] if before == after else ["/".join(map(str, path)) + f": {before!r} -> {after!r}"]


def verify(checks):
    config = None
    with checks.check("west.cfg is YAML"):
        config = yaml.load(open("/app/output/west.cfg"), Loader=Loader)
    if not isinstance(config, dict) or "west" not in config:
        for name in (
            "pcoord_len matches runseg.sh",
            "pcoord_ndim and dtype kept",
            "bin boundaries are the input's, in increasing order",
            "propagator names WESTPA's ExecutablePropagator",
            "propagator and pcoord scripts exist",
            "datasets nested under data",
            "every other setting of west.cfg is the input's (nothing else changed)",
            "unchanged settings kept",
        ):
            checks.require(name, False, "no readable west.cfg with a `west` section")
        fixes_listed(checks)  # read on its own: the same list of checks whatever is missing
        return
    west = config["west"]
    options = west.get("system", {}).get("system_options", {})
    checks.require(
        "pcoord_len matches runseg.sh", options.get("pcoord_len") == 11, f"pcoord_len {options.get('pcoord_len')}"
    )
    checks.require(
        "pcoord_ndim and dtype kept",
        options.get("pcoord_ndim") == 1 and options.get("pcoord_dtype") == "python/name:numpy.float32",
        f"{options.get('pcoord_ndim')}, {options.get('pcoord_dtype')}",
    )
    with checks.check("bin boundaries are the input's, in increasing order"):
        bins = options["bins"]
        values = [float(v) for v in bins["boundaries"][0]]
        assert bins["type"] == "RectilinearBinMapper", bins["type"]
        assert all(a < b for a, b in zip(values, values[1:])), f"boundaries {values}"
        assert values[-1] == float("inf") and values[0] <= 0.0, "boundaries must span [0, inf)"
        # exact: the input's boundaries sorted into place, none dropped, added or moved (0.15 changed to 0.25 is
        # increasing too)
        original = yaml.load(open(f"{SIM}/west.cfg").read().replace("\t", "    "), Loader=Loader)
        given = sorted(float(v) for v in original["west"]["system"]["system_options"]["bins"]["boundaries"][0])
        assert values == given, f"boundaries {values}, the input's sorted {given}"
    propagator = west.get("propagation", {}).get("propagator")
    checks.require(
        "propagator names WESTPA's ExecutablePropagator",
        propagator in ("executable", "westpa.core.propagators.executable.ExecutablePropagator"),
        f"{propagator}",
    )
    with checks.check("propagator and pcoord scripts exist"):
        for section in ("propagator", "get_pcoord"):
            path = west["executable"][section]["executable"].replace("$WEST_SIM_ROOT", SIM)
            assert os.path.isfile(path), f"{section} script {path} does not exist"
    with checks.check("datasets nested under data"):
        datasets = west["data"]["datasets"]
        assert datasets[0]["name"] == "pcoord" and datasets[0]["scaleoffset"] == 4, f"{datasets}"
    with checks.check("every other setting of west.cfg is the input's (nothing else changed)"):
        # the input with its tab (the YAML error) replaced, as a structure; the five fixed values left out
        original = yaml.load(open(f"{SIM}/west.cfg").read().replace("\t", "    "), Loader=Loader)
        fixed = {
            ("west", "system", "system_options", "pcoord_len"),
            ("west", "system", "system_options", "bins", "boundaries"),
            ("west", "propagation", "propagator"),
            ("west", "executable", "propagator", "executable"),
        }
        changed = differences(original, config, fixed)
        assert not changed, "; ".join(changed[:4])
    with checks.check("unchanged settings kept"):
        assert west["propagation"]["max_total_iterations"] == 50, "max_total_iterations changed"
        assert options["bin_target_counts"] == 4, "bin_target_counts changed"
        assert west["data"]["west_data_file"] == "west.h5", "west_data_file changed"
        assert west["propagation"]["gen_istates"] is False, "gen_istates changed"
        assert len([v for v in options["bins"]["boundaries"][0]]) == 8, "bins added or removed"
    fixes_listed(checks)


def fixes_listed(checks):
    present = os.path.isfile("/app/output/fixes.md")
    checks.require(
        "fixes.md lists the changes",
        present and sum(l.lstrip().startswith(("-", "*")) for l in open("/app/output/fixes.md")) >= 4,
        "fewer than 4 bullets" if present else "deliverable /app/output/fixes.md was not written",
    )


sys.exit(main(verify))
