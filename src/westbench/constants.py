"""Physical constants every layer shares: one owner each (the CG engine, its prior and the OpenMM engines).

>>> round(BOLTZMANN_KJ_MOL_K * 300.0, 6)
2.494339
"""

#: The molar gas constant R = N_A k_B in kJ/mol/K (exact since the 2019 SI: 8.31446261815324 J/mol/K).
BOLTZMANN_KJ_MOL_K = 0.00831446261815324
