"""Check the run input against the verifier's own grompp, tie npt.edr to it (first frame, last frame, length) and
recompute every reported average and error estimate from the agent's own npt.edr with gmx energy."""

import os
import re
import sys
from functools import partial

import numpy as np
from verifykit import gmx as run_gmx
from verifykit import load_json, main

OUT = "/app/output"
INPUTS = "/app/inputs"
WORK = "/tmp/reference"
BEGIN = 2.0  # ps of equilibration discarded
LENGTH, SPACING = 10.0, 0.05  # ps: the run and its energy frames
KEYS = {  # reported key: (gmx energy term, column (0 average, 1 Err.Est.), absolute window, relative window)
    "density_mean_kg_m3": ("Density", 0, 0.02, 0.0),
    "density_err_kg_m3": ("Density", 1, 0.006, 0.005),
    "pressure_mean_bar": ("Pressure", 0, 0.02, 0.0),
    "pressure_err_bar": ("Pressure", 1, 0.06, 0.005),
}

gmx = partial(run_gmx, cwd="/tmp", timeout=90)


def energy(edr, terms, begin=None):
    """gmx energy's frames of ``terms`` (array: time, then each term in the order asked) and the table it prints:
    term -> (Average, Err.Est., RMSD, Tot-Drift)."""
    xvg = f"/tmp/{os.path.basename(edr)}-{begin}.xvg"
    args = ["energy", "-f", edr, "-o", xvg, "-xvg", "xmgrace"] + (["-b", str(begin)] if begin is not None else [])
    code, log = gmx(*args, stdin="\n".join(terms) + "\n\n")
    assert code == 0, log[-300:]
    legends = re.findall(r'^@ s\d+ legend "(.*)"', open(xvg).read(), re.M)
    data = np.loadtxt(xvg, comments=("#", "@"), ndmin=2)
    table = {}
    for term in terms:
        found = re.search(rf"^{re.escape(term)}\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", log, re.M)
        if found:
            table[term] = tuple(float(x) if x != "--" else float("nan") for x in found.groups())
    return data[:, [0] + [1 + legends.index(t) for t in terms]], table


def reference_tpr():
    os.makedirs(WORK, exist_ok=True)
    code, log = gmx("grompp", "-f", f"{INPUTS}/npt.mdp", "-c", f"{INPUTS}/water.gro", "-p", f"{INPUTS}/topol.top",
                    "-o", f"{WORK}/npt.tpr", "-po", f"{WORK}/mdout.mdp", cwd=WORK)  # fmt: skip
    assert code == 0, log[-300:]
    return f"{WORK}/npt.tpr"


def zero_step_potential(tpr):
    """The potential energy (kJ/mol) at step 0 of ``tpr``: a zero-step mdrun."""
    code, log = gmx("mdrun", "-s", tpr, "-deffnm", f"{WORK}/zero", "-nsteps", "0", "-nt", "1", cwd=WORK)
    assert code == 0, log[-300:]
    data, _ = energy(f"{WORK}/zero.edr", ["Potential"])
    return float(data[0, 1])


def tpr_differences(mine, theirs):
    """The lines gmx check prints for two run inputs' differences (empty when they are the same run)."""
    code, log = gmx("check", "-s1", mine, "-s2", theirs)
    assert code == 0, log[-300:]
    body = log.split("comparing", 1)[-1] if "comparing" in log else log
    return [line for line in body.splitlines() if re.match(r"^\S.*\(.*\)\s*-\s*\(.*\)|^\s*\S+\s*\(", line)]


def verify(checks):
    ref_tpr = reference_tpr()
    with checks.check("npt.tpr is grompp's run input of npt.mdp, water.gro and topol.top as shipped (gmx check)"):
        assert os.path.isfile(f"{OUT}/npt.tpr"), "npt.tpr missing"
        differences = tpr_differences(f"{OUT}/npt.tpr", ref_tpr)
        assert not differences, "differs from the shipped run: " + "; ".join(differences[:4])

    frames = None
    with checks.check("npt.edr: the whole 10 ps run, energies every 0.05 ps"):
        frames, _ = energy(f"{OUT}/npt.edr", ["Potential", "Density", "Volume", "Pressure"])
        times = frames[:, 0]
        expected = np.arange(0, LENGTH + SPACING / 2, SPACING)
        assert len(times) == len(expected) and np.allclose(times, expected, atol=1e-4), (
            f"{len(times)} frames, {times[0]:g}-{times[-1]:g} ps; the run writes {len(expected)}, 0-{LENGTH:g} ps"
        )
    with checks.check("npt.edr starts from water.gro: its t = 0 potential that of a zero-step run (5 kJ/mol)"):
        # single-precision sums: one thread and two domains differ by 0.59 kJ/mol at t = 0 (measured in the image)
        assert frames is not None, "npt.edr unreadable"
        start = zero_step_potential(ref_tpr)
        assert abs(frames[0, 1] - start) <= 5.0, f"t = 0 potential {frames[0, 1]:.2f}, the start's {start:.2f} kJ/mol"
    with checks.check("npt.edr is a pressure-coupled run: the box volume changes (more than 0.1 %)"):
        assert frames is not None, "npt.edr unreadable"
        volume = frames[:, 3]
        assert (volume.max() - volume.min()) / volume.mean() > 1e-3, f"volume {volume.min():.4f}-{volume.max():.4f}"
    with checks.check("npt.gro is the run's last frame: its box volume the last volume of npt.edr (1e-4 relative)"):
        assert frames is not None, "npt.edr unreadable"
        lines = open(f"{OUT}/npt.gro").read().splitlines()
        box = [float(x) for x in lines[2 + int(lines[1])].split()[:3]]
        assert len(lines) == int(lines[1]) + 3, "not a single GRO frame"
        assert abs(np.prod(box) / frames[-1, 3] - 1) <= 1e-4, f"box {np.prod(box):.4f}, last {frames[-1, 3]:.4f} nm^3"

    # the averages over t >= 2 ps as gmx energy -b 2 prints them (its exact averages over the energy steps), or as
    # the mean of the frames from 2 ps, or after 2 ps; the error estimate as gmx energy -b 2 prints it
    table, production = {}, None
    with checks.check("gmx energy -b 2 reads npt.edr"):
        production, table = energy(f"{OUT}/npt.edr", ["Density", "Pressure"], begin=BEGIN)
        assert set(table) == {"Density", "Pressure"}, f"terms {sorted(table)}"
    answer = {}
    with checks.check("density.json: a JSON object of four numbers"):
        answer = load_json(f"{OUT}/density.json")
        for key in KEYS:
            assert isinstance(answer.get(key), (int, float)), f"{key}: {answer.get(key)!r}"
    for key, (term, column, absolute, relative) in KEYS.items():
        value = answer.get(key)
        candidates = []
        if term in table:
            candidates.append(table[term][column])
            if column == 0 and production is not None:
                series = production[:, 1 + ["Density", "Pressure"].index(term)]
                candidates += [series.mean(), series[production[:, 0] > BEGIN + 1e-6].mean()]
        ok = isinstance(value, (int, float)) and any(abs(value - c) <= absolute + relative * abs(c) for c in candidates)
        checks.require(
            f"density.json {key}: gmx energy's {'average' if column == 0 else 'Err.Est.'} of {term} over 2-10 ps",
            ok,
            f"{value!r}; gmx energy -b 2 on npt.edr gives {candidates[0] if candidates else 'nothing'}",
        )
    density = answer.get("density_mean_kg_m3")
    checks.require(
        "plausibility: SPC/E water's density at 300 K and 1 bar, 975-1025 kg/m^3",
        isinstance(density, (int, float)) and 975 <= density <= 1025,
        f"{density!r} kg/m^3",
    )


sys.exit(main(verify))
