#!/bin/bash
# Near miss: prepares and minimizes, then fabricates the 2 ps of MD: 10 frames of the minimized structure with noise
# (0.007 nm on heavy atoms, each hydrogen moved with its atom: bonds kept, every frame 0.01 nm from the last),
# written as a DCD with the header of a 2 fs, 100-step run; the integrator serialized but never stepped.
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import json

import mdtraj
import numpy as np
import openmm
from openmm import app, unit

forcefield_files = ["amber14-all.xml", "implicit/gbn2.xml"]
forcefield = app.ForceField(*forcefield_files)
pdb = app.PDBFile("/app/inputs/peptide_heavy.pdb")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addHydrogens(forcefield, pH=7.0)
system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 2 * unit.femtoseconds)
integrator.setRandomNumberSeed(42)
simulation = app.Simulation(modeller.topology, system, integrator, openmm.Platform.getPlatformByName("CPU"))
simulation.context.setPositions(modeller.positions)
simulation.minimizeEnergy()
minimized = simulation.context.getState(getPositions=True).getPositions()
with open("/app/output/minimized.pdb", "w") as handle:
    app.PDBFile.writeFile(modeller.topology, minimized, handle)
# the near miss: no dynamics; each "frame" is the minimized structure with noise, hydrogens carried by their atom
start = np.array(minimized.value_in_unit(unit.nanometer))
carrier = {}
for a, b in modeller.topology.bonds():
    if a.element.symbol == "H":
        carrier[a.index] = b.index
    elif b.element.symbol == "H":
        carrier[b.index] = a.index
rng = np.random.default_rng(42)
with open("/app/output/trajectory.dcd", "wb") as handle:
    dcd = app.DCDFile(handle, modeller.topology, 2 * unit.femtoseconds, 0, 100)
    for _ in range(10):
        shift = rng.normal(0.0, 0.007, start.shape)
        for hydrogen, atom in carrier.items():
            shift[hydrogen] = shift[atom]
        dcd.writeModel((start + shift) * unit.nanometer)
# the run's own objects, serialized: what the verifier reads the settings back from
with open("/app/output/system.xml", "w") as handle:
    handle.write(openmm.XmlSerializer.serialize(system))
with open("/app/output/integrator.xml", "w") as handle:
    handle.write(openmm.XmlSerializer.serialize(integrator))
del simulation

trajectory = mdtraj.load("/app/output/trajectory.dcd", top="/app/output/minimized.pdb")
reference = mdtraj.load("/app/output/minimized.pdb")
ca = trajectory.topology.select("name CA")
rmsd = mdtraj.rmsd(trajectory, reference, atom_indices=ca)
rg = mdtraj.compute_rg(trajectory.atom_slice(ca))
with open("/app/output/analysis.csv", "w") as handle:
    handle.write("frame,time_ps,rmsd_nm,rg_nm\n")
    for i, (r, g) in enumerate(zip(rmsd, rg)):
        handle.write(f"{i},{0.2 * (i + 1):.1f},{r:.6f},{g:.6f}\n")
json.dump({"seed": 42, "steps": 1000, "timestep_fs": 2.0, "temperature_k": 300.0, "forcefield": forcefield_files,
           "openmm_version": openmm.version.version}, open("/app/output/run.json", "w"), indent=2)
rows = "\n".join(f"| {0.2 * (i + 1):.1f} | {r:.3f} | {g:.3f} |" for i, (r, g) in enumerate(zip(rmsd, rg)))
open("/app/output/report.md", "w").write(f"""# Chignolin, 2 ps of implicit-solvent MD

Hydrogens added at pH 7 (OpenMM Modeller); amber14-all + GBn2, no cutoff, HBonds constraints; minimized;
Langevin 300 K, 1/ps, 2 fs, 1000 steps, seed 42; frames every 0.2 ps.

| time (ps) | C-alpha RMSD (nm) | Rg (nm) |
|---|---|---|
{rows}

Mean radius of gyration: {rg.mean():.3f} nm; final RMSD to the minimized structure: {rmsd[-1]:.3f} nm.
""")
EOF
