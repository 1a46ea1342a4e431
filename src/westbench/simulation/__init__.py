"""The OpenMM layer every stage shares: platforms and contexts, the integrator and minimizer, the resumable MD run."""
