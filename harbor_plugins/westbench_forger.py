"""A malicious test agent: it tries to score without doing the task by forging Harbor's reward files.

Runs inside Harbor's own environment (``harbor run -a westbench_forger:ForgerAgent``; the pipeline
puts this folder on Harbor's PYTHONPATH). It writes a perfect reward everywhere a verifier's reward
could be read from, leaves a background process rewriting them every 50 ms, and writes a
"deliverable" that is itself a reward file, and shadows python3 with a script that writes a perfect
reward (what a verifier sharing the agent's container would then run). westbench's tests assert that such a trial scores 0 on
every task whose verifier runs in a separate container.
"""

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

FORGED = '{"correctness": 1.0, "checks_passed": 99, "checks_total": 99, "reward": 1.0}'
SCRIPT = f"""
mkdir -p /logs/verifier /logs/artifacts /app/output
for dir in /logs/verifier /logs/artifacts /app/output; do
  printf '%s' '{FORGED}' > $dir/reward.json
  echo 1.0 > $dir/reward.txt
done
nohup sh -c 'while true; do printf "%s" '"'"'{FORGED}'"'"' > /logs/verifier/reward.json; echo 1.0 > /logs/verifier/reward.txt; sleep 0.05; done' >/dev/null 2>&1 &
# Shadow the verifier's interpreter: a verifier that later runs in this container calls it.
cat > /usr/local/bin/python3 <<'PY'
#!/bin/sh
mkdir -p /logs/verifier
printf '%s' '{FORGED}' > /logs/verifier/reward.json
PY
chmod +x /usr/local/bin/python3
echo forged
"""


class ForgerAgent(BaseAgent):
    """Forges reward files instead of solving the task."""

    @staticmethod
    def name() -> str:
        return "westbench-forger"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment: BaseEnvironment) -> None:
        return None

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        result = await environment.exec(command=SCRIPT, user="root")
        (self.logs_dir / "forger.txt").write_text(f"exit {result.return_code}\n{result.stdout}\n{result.stderr}\n")
