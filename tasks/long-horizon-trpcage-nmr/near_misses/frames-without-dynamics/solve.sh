#!/bin/bash
# Near miss: every step of the reference but the dynamics, whose 10 frames are fabricated: the minimized structure
# with noise (0.007 nm, each hydrogen moved with its atom: bonds kept, every frame 0.01 nm from the last), written as
# a DCD with the header of a 2 fs, 100-step run; initial_state.xml drawn as stated, the integrator never stepped.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import io
import json

import mdtraj
import numpy as np
import openmm
from openmm import app, unit
from pdbfixer import PDBFixer

# model 1 only, with the deposited hydrogens removed (their names differ from Amber's) and rebuilt for pH 7
text, model = [], 0
for line in open("/app/inputs/1L2Y.pdb"):
    if line.startswith("MODEL"):
        model += 1
        continue
    if line.startswith("ENDMDL") and model == 1:
        break
    if line.startswith("ATOM") and model == 1 and line[76:78].strip() != "H":
        text.append(line)
fixer = PDBFixer(pdbfile=io.StringIO("".join(text) + "END\n"))
fixer.findMissingResidues()
fixer.findMissingAtoms()
fixer.addMissingAtoms()
fixer.addMissingHydrogens(7.0)
forcefield_files = ["amber14-all.xml", "implicit/gbn2.xml"]
forcefield = app.ForceField(*forcefield_files)
system = forcefield.createSystem(fixer.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 2 * unit.femtoseconds)
integrator.setRandomNumberSeed(7)
simulation = app.Simulation(fixer.topology, system, integrator, openmm.Platform.getPlatformByName("CPU"))
simulation.context.setPositions(fixer.positions)
simulation.minimizeEnergy(tolerance=100 * unit.kilojoule_per_mole / unit.nanometer)  # to a max force of 100 kJ/mol/nm
with open("/app/output/minimized.pdb", "w") as handle:
    app.PDBFile.writeFile(fixer.topology, simulation.context.getState(getPositions=True).getPositions(), handle)
simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 7)
with open("/app/output/initial_state.xml", "w") as handle:  # where the dynamics starts
    handle.write(openmm.XmlSerializer.serialize(simulation.context.getState(getPositions=True, getVelocities=True)))
# the near miss: no dynamics; each "frame" is the minimized structure with noise, hydrogens carried by their atom
start = simulation.context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
carrier = {}
for a, b in fixer.topology.bonds():
    if a.element.symbol == "H":
        carrier[a.index] = b.index
    elif b.element.symbol == "H":
        carrier[b.index] = a.index
rng = np.random.default_rng(7)
with open("/app/output/trajectory.dcd", "wb") as handle:
    dcd = app.DCDFile(handle, fixer.topology, 2 * unit.femtoseconds, 0, 100)
    for _ in range(10):
        shift = rng.normal(0.0, 0.007, start.shape)
        for hydrogen, atom in carrier.items():
            shift[hydrogen] = shift[atom]
        dcd.writeModel((start + shift) * unit.nanometer)
del simulation
# the run's own objects, serialized: what the verifier reads the settings back from
with open("/app/output/system.xml", "w") as handle:
    handle.write(openmm.XmlSerializer.serialize(system))
with open("/app/output/integrator.xml", "w") as handle:
    handle.write(openmm.XmlSerializer.serialize(integrator))

trajectory = mdtraj.load("/app/output/trajectory.dcd", top="/app/output/minimized.pdb")
nmr = mdtraj.load_frame("/app/inputs/1L2Y.pdb", 0)
rmsd = mdtraj.rmsd(trajectory, nmr, atom_indices=trajectory.topology.select("name CA"), ref_atom_indices=nmr.topology.select("name CA"))
helix = (mdtraj.compute_dssp(trajectory, simplified=True) == "H").mean(axis=1)
with open("/app/output/analysis.csv", "w") as handle:
    handle.write("frame,time_ps,ca_rmsd_nm,helix_fraction\n")
    for i in range(trajectory.n_frames):
        handle.write(f"{i},{0.2 * (i + 1):.1f},{rmsd[i]:.5f},{helix[i]:.4f}\n")
json.dump({"model": 1, "seed": 7, "steps": 1000, "timestep_fs": 2.0, "temperature_k": 300.0, "forcefield": forcefield_files},
          open("/app/output/run.json", "w"), indent=1)
open("/app/output/report.md", "w").write(f"""# Trp-cage (1L2Y) in implicit solvent

1. Model 1 of the NMR ensemble; deposited hydrogens replaced by PDBFixer's for pH 7 (Amber14 names).
2. amber14-all + GBn2, no cutoff, HBonds constraints; minimized (to a maximum force of 100 kJ/mol/nm); Langevin
   (LangevinMiddle) 300 K, 1/ps, 2 fs, 1000 steps (2 ps), seed 7; a frame every 0.2 ps.
3. C-alpha RMSD to the experimental model 1 and simplified-DSSP helix fraction per frame (mdtraj).

| quantity | value |
|---|---|
| mean C-alpha RMSD to model 1 | {rmsd.mean():.3f} nm |
| max C-alpha RMSD | {rmsd.max():.3f} nm |
| mean helix fraction | {helix.mean():.3f} |

The fold stays close to the NMR structure over 2 ps and the helix (residues 2-9) persists; 2 ps says nothing about
stability on longer time scales.
""")
PY
