#!/bin/bash
# Near miss: tau from sigma in A, m in g/mol and epsilon in kcal/mol (44.1) read as fs, missing the 48.89 factor.
# Reference: the same liquid argon state (rho* 0.8, T* 1.0; 1.3443 g/cm3, 119.8 K) in units lj and in units real:
# epsilon = 119.8 K kB = 0.238067 kcal/mol, sigma 3.405 A, m 39.948 g/mol, tau = sigma sqrt(m/epsilon) = 2156.4 fs.
# Nose-Hoover NVT, 2000 + 10000 steps of 0.005 tau; means over the production rows, converted both ways.
set -euo pipefail
SEED=${SEED:-4928}
mkdir -p /app/output && cd /app/output
python3 - <<'PY' > real.env
import math
KB, NA, CAL = 1.380649e-23, 6.02214076e23, 4.184
eps = 119.8 * KB  # J per atom
sigma = 3.405e-10  # m
mass = 39.948e-3 / NA  # kg per atom
tau_fs = 3.405 * math.sqrt(39.948 / (eps * NA / CAL / 1000))  # A sqrt(g/mol / kcal/mol) read as fs
print(f"EPS={eps * NA / CAL / 1000:.8f}")  # kcal/mol
print(f"CUT={2.5 * 3.405:.6f}")
print(f"A={3.405 * (4 / 0.8) ** (1 / 3):.8f}")  # fcc lattice constant (A) at rho* 0.8
print(f"DT={0.005 * tau_fs:.8f}")
print(f"TDAMP={0.5 * tau_fs:.6f}")
PY
source real.env && rm real.env
cat > in.lj <<LMP
units           lj
atom_style      atomic
lattice         fcc 0.8
region          box block 0 5 0 5 0 5
create_box      1 box
create_atoms    1 box
mass            1 1.0
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 1.0 $SEED dist gaussian mom yes rot yes
timestep        0.005
fix             nvt all nvt temp 1.0 1.0 0.5
thermo_style    custom step temp press pe density
thermo          100
run             2000
run             10000
LMP
cat > in.real <<LMP
units           real
atom_style      atomic
lattice         fcc $A
region          box block 0 5 0 5 0 5
create_box      1 box
create_atoms    1 box
mass            1 39.948
pair_style      lj/cut $CUT
pair_coeff      1 1 $EPS 3.405 $CUT
neighbor        1.0215 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 119.8 $SEED dist gaussian mom yes rot yes
timestep        $DT
fix             nvt all nvt temp 119.8 119.8 $TDAMP
thermo_style    custom step temp press pe density
thermo          100
run             2000
run             10000
LMP
lmp -in in.lj -log log.lj -screen none
lmp -in in.real -log log.real -screen none
python3 - <<'PY'
import json
import math

KB, NA, CAL, ATM, BAR = 1.380649e-23, 6.02214076e23, 4.184, 101325.0, 1e5
eps = 119.8 * KB  # J per atom
sigma = 3.405e-10  # m
mass = 39.948e-3 / NA  # kg per atom
tau_fs = 3.405 * math.sqrt(39.948 / (eps * NA / CAL / 1000))  # A sqrt(g/mol / kcal/mol) read as fs


def production(path):
    """Means of every column over the last thermo block (the production run), by column name."""
    text = open(path).read()
    block = text.rsplit("\nStep ", 1)[1].split("Loop time")[0].splitlines()
    names = ["Step"] + block[0].split()
    rows = [[float(x) for x in line.split()] for line in block[1:] if len(line.split()) == len(names)]
    return {n: sum(r[i] for r in rows) / len(rows) for i, n in enumerate(names)}


lj, real = production("log.lj"), production("log.real")
eps_kcal_mol = eps * NA / CAL / 1000
result = {
    "lj": {"pressure": lj["Press"], "pe": lj["PotEng"]},
    "real": {
        "density_g_cm3": real["Density"],
        "pressure_atm": real["Press"],
        "pe_kcal_mol": real["PotEng"] / 500,  # units real prints the total (thermo norm no)
    },
    "lj_converted": {
        "density_g_cm3": lj["Density"] * mass * 1e3 / (sigma * 100) ** 3,
        "pressure_bar": lj["Press"] * eps / sigma**3 / BAR,
        "pe_kj_mol": lj["PotEng"] * eps * NA / 1000,
        "timestep_fs": 0.005 * tau_fs,
    },
    "real_reduced": {
        "pressure": real["Press"] * ATM * sigma**3 / eps,
        "pe": real["PotEng"] / 500 / eps_kcal_mol,
    },
}
json.dump(result, open("result.json", "w"), indent=1)
PY
