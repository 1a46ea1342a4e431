"""Write this task's inputs (committed; rerun only to remake them): a short implicit-solvent MD run of Trp-cage.

Run in the task's own base image, with the raw RCSB entry 1L2Y (never committed) mounted beside it:

    docker run --rm -v "$PWD/tasks/mdanalysis-ramachandran-helix/environment:/w" \
        -v "$PWD/../shared/structures:/s:ro" westbench/md-base:bookworm-1 \
        python3 /w/make_inputs.py /s/1L2Y.pdb /w/inputs

Model 1 of 1L2Y (hydrogens as deposited), Amber99SB-ILDN with OBC implicit solvent, bonds to hydrogen constrained,
one CPU thread, Langevin 360 K (a hot run, so the helix frays), 2 fs, seed 56: minimized, 2 ps of equilibration,
then 20 ps written every 0.2 ps (100 frames) as XTC with the topology as PDB (frame 0).
"""

import sys

import mdtraj
import openmm
from openmm import app, unit

SEED = 56
TEMPERATURE_K = 360.0
FRAMES = 100
STEPS_PER_FRAME = 100  # 0.2 ps at 2 fs


def main(raw: str, out: str) -> None:
    pdb = app.PDBFile(raw)  # the first model of the entry
    modeller = app.Modeller(pdb.topology, pdb.positions)
    forcefield = app.ForceField("amber99sbildn.xml", "amber99_obc.xml")
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
    integrator = openmm.LangevinMiddleIntegrator(TEMPERATURE_K * unit.kelvin, 1 / unit.picosecond, 2 * unit.femtosecond)
    integrator.setRandomNumberSeed(SEED)
    simulation = app.Simulation(
        modeller.topology, system, integrator, openmm.Platform.getPlatformByName("CPU"), {"Threads": "1"}
    )
    simulation.context.setPositions(modeller.positions)
    simulation.minimizeEnergy(maxIterations=500)
    simulation.context.setVelocitiesToTemperature(TEMPERATURE_K * unit.kelvin, SEED)
    simulation.step(1000)
    topology = mdtraj.Topology.from_openmm(modeller.topology)
    frames = []
    for frame in range(FRAMES):
        simulation.step(STEPS_PER_FRAME)
        if frame % 10 == 9:
            print(f"frame {frame + 1} of {FRAMES}", flush=True)
        frames.append(
            simulation.context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        )
    trajectory = mdtraj.Trajectory(frames, topology, time=[0.2 * (i + 1) for i in range(FRAMES)])
    trajectory[0].save_pdb(f"{out}/trpcage.pdb")
    trajectory.save_xtc(f"{out}/trpcage.xtc")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
