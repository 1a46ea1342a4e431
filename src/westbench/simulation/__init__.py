"""The OpenMM layer every stage shares: platforms and contexts, solvated systems, the integrator and minimizer,
the resumable MD run."""
