"""Read the log, then run the proposed settings with OpenMM and check the run stays finite and cool."""

import csv
import json
import math
import sys

import openmm
from openmm import app, unit
from verifykit import load_json, main


def verify(checks):
    rows = list(csv.reader(l for l in open("/app/inputs/md.log") if not l.startswith("#")))
    bad = next(int(r[0]) for r in rows if not all(math.isfinite(float(v)) for v in r[1:]) or float(r[3]) > 1000)
    settings = json.load(open("/app/inputs/md.json"))
    diagnosis = {}
    with checks.check("diagnosis.json readable"):
        diagnosis = load_json("/app/output/diagnosis.json")
    checks.require(
        "first bad step from the log",
        diagnosis.get("first_bad_step") == bad,
        f"{diagnosis.get('first_bad_step')} != {bad}",
    )
    checks.require("cause", diagnosis.get("cause") == "timestep_too_large", f"cause {diagnosis.get('cause')}")
    fix = diagnosis.get("fix") if isinstance(diagnosis.get("fix"), dict) else {}
    with checks.check("fix changes the integration settings only"):
        assert set(fix) == {"timestep_fs", "constraints", "hydrogen_mass_amu"}, f"keys {sorted(fix)}"
        assert fix["constraints"] in (None, "HBonds", "AllBonds", "HAngles"), f"constraints {fix['constraints']}"
    with checks.check("the fixed run is stable (OpenMM, 1000 steps)"):
        assert fix, "no fix"
        pdb = app.PDBFile("/app/inputs/peptide.pdb")
        constraints = {None: None, "HBonds": app.HBonds, "AllBonds": app.AllBonds, "HAngles": app.HAngles}[
            fix["constraints"]
        ]
        kwargs = {"hydrogenMass": fix["hydrogen_mass_amu"] * unit.amu} if fix["hydrogen_mass_amu"] else {}
        system = app.ForceField(*settings["forcefield"]).createSystem(
            pdb.topology, nonbondedMethod=app.NoCutoff, constraints=constraints, **kwargs
        )
        # repartitioning takes the hydrogens' extra mass from their heavy atoms: none may be left (nearly) massless
        lightest = min(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))
        assert lightest > 0.5, f"hydrogen mass {fix['hydrogen_mass_amu']} amu leaves an atom with {lightest:.2f} amu"
        integrator = openmm.LangevinMiddleIntegrator(
            settings["temperature_k"] * unit.kelvin,
            settings["friction_per_ps"] / unit.picosecond,
            float(fix["timestep_fs"]) * unit.femtoseconds,
        )
        integrator.setRandomNumberSeed(settings["seed"])
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CPU"), {"Threads": "1"})
        context.setPositions(pdb.positions)
        context.setVelocitiesToTemperature(settings["temperature_k"] * unit.kelvin, settings["seed"])
        dof = 3 * system.getNumParticles() - system.getNumConstraints()
        for _ in range(10):
            integrator.step(100)
            state = context.getState(getEnergy=True)
            kinetic = state.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole)
            temperature = (
                2 * kinetic / (dof * unit.MOLAR_GAS_CONSTANT_R.value_in_unit(unit.kilojoule_per_mole / unit.kelvin))
            )
            assert math.isfinite(state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)), "energy not finite"
            assert temperature < 500, f"temperature {temperature:.0f} K"
    with checks.check(
        "fix is a standard stable protocol (1 fs unconstrained, 2 fs with constraints, 4 fs with heavy hydrogens)"
    ):
        # the run above lasts 2 ps: a timestep past these limits can survive it and still drift in production
        timestep, constraints, mass = float(fix["timestep_fs"]), fix["constraints"], fix["hydrogen_mass_amu"]
        # repartitioning uses 3-4 amu (at most four hydrogen masses, 4.032) and never lightens a hydrogen; a methyl
        # carbon keeps 12.011 - 3 (m - 1.008) amu: 2.95 at 4.032, nothing at 5.01 amu
        assert mass is None or 1.0 <= float(mass) <= 4.032, (
            f"hydrogen mass {mass} amu is no standard repartitioning (1.0-4.032 amu; a methyl carbon would keep "
            f"{12.011 - 3 * (float(mass) - 1.008):.2f} amu)"
        )
        limit = 1.0 if constraints is None else (4.0 if mass is not None and float(mass) >= 2.5 else 2.0)
        assert timestep <= limit, (
            f"{timestep} fs with constraints {constraints} and hydrogen mass {mass}: the limit is {limit} fs"
        )
    checks.require(
        "fix is not slower than needed (timestep >= 1 fs)",
        float(fix.get("timestep_fs") or 0) >= 1.0,
        f"timestep {fix.get('timestep_fs')} fs",
    )


sys.exit(main(verify))
