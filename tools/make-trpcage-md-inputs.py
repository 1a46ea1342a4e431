"""Write the inputs of the tasks that analyse Trp-cage MD (committed; rerun only to remake them): a short
implicit-solvent run per task, in the task's own base image so that the file is what that image's OpenMM writes.

Run with the raw RCSB entry 1L2Y (never committed) mounted beside it:

    docker run --rm -v "$PWD/tools:/t:ro" -v "$PWD/tasks/<task>/environment/inputs:/w" \
        -v "$PWD/../shared/structures:/s:ro" westbench/md-base:bookworm-1 \
        python3 /t/make-trpcage-md-inputs.py /s/1L2Y.pdb /w <task>

Model 1 of 1L2Y (hydrogens as deposited), Amber99SB-ILDN with OBC implicit solvent, bonds to hydrogen constrained,
one CPU thread, Langevin 2 fs at the task's temperature and seed (:data:`RUNS`: `mdtraj-hbond-occupancy` 300 K,
`mdanalysis-ramachandran-helix` 360 K, a hot run so that the helix frays): minimized, 2 ps of equilibration, then
20 ps written every 0.2 ps (100 frames) as XTC with the topology as PDB (frame 0). amber14's implicit-solvent files
run about 5 times slower on these CPUs, hence Amber99SB-ILDN with OBC.
"""

import sys

import mdtraj
import openmm
from openmm import app, unit

FRAMES = 100
#: Each task's run: (temperature in K, seed).
RUNS = {"mdtraj-hbond-occupancy": (300.0, 55), "mdanalysis-ramachandran-helix": (360.0, 56)}
STEPS_PER_FRAME = 100  # 0.2 ps at 2 fs


def main(raw: str, out: str, temperature_k: float, seed: int) -> None:
    pdb = app.PDBFile(raw)  # the first model of the entry
    modeller = app.Modeller(pdb.topology, pdb.positions)
    forcefield = app.ForceField("amber99sbildn.xml", "amber99_obc.xml")
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
    integrator = openmm.LangevinMiddleIntegrator(temperature_k * unit.kelvin, 1 / unit.picosecond, 2 * unit.femtosecond)
    integrator.setRandomNumberSeed(seed)
    simulation = app.Simulation(
        modeller.topology, system, integrator, openmm.Platform.getPlatformByName("CPU"), {"Threads": "1"}
    )
    simulation.context.setPositions(modeller.positions)
    simulation.minimizeEnergy(maxIterations=500)
    simulation.context.setVelocitiesToTemperature(temperature_k * unit.kelvin, seed)
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
    task = sys.argv[3]
    main(sys.argv[1], sys.argv[2], *RUNS[task])
