#!/bin/bash
# Verifier entry point. A zero reward is in place before anything runs, so a crash, a kill or a
# timeout never leaves the trial without one; verify.py replaces it with the real score.
mkdir -p /logs/verifier
printf '{"correctness": 0.0, "checks_passed": 0, "checks_total": 0}\n' > /logs/verifier/reward.json
cd /tests && python3 verify.py
