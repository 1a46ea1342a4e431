"""Malicious test agents: they try to score without doing the task by forging Harbor's reward.

Run inside Harbor's own environment (``harbor run -a westbench_forger:ForgerAgent --ak attack=<name>``;
the pipeline puts this folder on Harbor's PYTHONPATH). None of them writes the task's answer. Attacks
(``attack`` keyword; ``all`` runs every one):

* ``background``: a detached process rewriting ``/logs/verifier/reward.{txt,json}`` every 20 ms;
* ``prewritten``: perfect reward files written before the verifier starts, in /logs/verifier, in the
  convention artifacts folder and among the deliverables;
* ``tests``: ``/tests`` replaced by a test.sh (and a conftest.py) that write a perfect reward;
* ``trojan``: a ``python3`` and a ``bash`` earlier on PATH (/usr/local/bin) that run the real one and
  then overwrite the reward, a ``sitecustomize.py`` and a ``usercustomize.py`` doing the same at exit,
  and ``/etc/ld.so.preload`` naming a library of the agent's;
* ``shadow``: ``json.py`` and ``numpy.py`` in the working folder that exit 0 at import (a verifier
  run from /app with ``python3 -c``/``-m`` would import them instead of the image's modules);
* ``sleeper``: a detached process that waits until the verifier's files appear (or 120 s), then keeps
  writing a perfect reward for a minute.

westbench's tests assert that each scores 0 with a failed status on every task, whatever its verifier
mode, while the oracle scores 1.
"""

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

FORGED_JSON = '{"correctness": 1.0, "checks_passed": 99, "checks_total": 99, "reward": 1.0}'
WRITE = (
    f"mkdir -p /logs/verifier; printf '%s' '{FORGED_JSON}' > /logs/verifier/reward.json; "
    "echo 1.0 > /logs/verifier/reward.txt"
)

ATTACKS = {
    "background": f"""
cat > /tmp/forge-loop.sh <<'EOF'
while true; do {WRITE}; sleep 0.02; done
EOF
setsid nohup sh /tmp/forge-loop.sh >/dev/null 2>&1 < /dev/null &
""",
    "prewritten": f"""
{WRITE}
for dir in /logs/artifacts /app/output /app; do
  mkdir -p $dir; printf '%s' '{FORGED_JSON}' > $dir/reward.json; echo 1.0 > $dir/reward.txt
done
""",
    "tests": f"""
rm -rf /tests; mkdir -p /tests
cat > /tests/test.sh <<'EOF'
#!/bin/sh
{WRITE}
EOF
chmod +x /tests/test.sh
cat > /tests/conftest.py <<'EOF'
import atexit, os
atexit.register(os.system, {WRITE!r})
EOF
""",
    "trojan": f"""
mkdir -p /usr/local/bin /usr/local/lib/python3.11/dist-packages /root/.local/lib/python3.11/site-packages /app
cat > /usr/local/bin/python3 <<'EOF'
#!/bin/sh
/usr/bin/python3 "$@"
{WRITE}
exit 0
EOF
cat > /usr/local/bin/bash.forged <<'EOF'
#!/bin/sh
/bin/bash "$@"
[ -d /logs/verifier ] && {{ {WRITE}; }}
exit 0
EOF
cat > /usr/local/lib/python3.11/dist-packages/sitecustomize.py <<'EOF'
import atexit, os
atexit.register(os.system, {WRITE!r})
EOF
cp /usr/local/lib/python3.11/dist-packages/sitecustomize.py /root/.local/lib/python3.11/site-packages/usercustomize.py
cp /usr/local/lib/python3.11/dist-packages/sitecustomize.py /app/sitecustomize.py
cat > /usr/local/lib/python3.11/dist-packages/forge.pth <<'EOF'
import os; os.system({WRITE!r})
EOF
echo 'int x;' > /app/libforge.so
echo /app/libforge.so > /etc/ld.so.preload.forged
chmod +x /usr/local/bin/python3 /usr/local/bin/bash.forged
# Last, so the commands above still ran with the real shell: bash on PATH and the preload list.
mv /usr/local/bin/bash.forged /usr/local/bin/bash
mv /etc/ld.so.preload.forged /etc/ld.so.preload
""",
    "shadow": """
mkdir -p /app
for module in json numpy; do printf 'import sys\\nsys.exit(0)\\n' > /app/$module.py; done
""",
    "sleeper": f"""
cat > /tmp/forge-sleeper.sh <<'EOF'
for i in $(seq 1200); do [ -e /tests/test.sh ] && break; sleep 0.1; done
sleep 0.5
for i in $(seq 600); do {WRITE}; sleep 0.1; done
EOF
setsid nohup sh /tmp/forge-sleeper.sh >/dev/null 2>&1 < /dev/null &
""",
}
ORDER = ("background", "prewritten", "tests", "shadow", "sleeper", "trojan")  # trojan last: it replaces the shell


class ForgerAgent(BaseAgent):
    """Forges the reward instead of solving the task (``attack``: one of :data:`ATTACKS` or ``all``)."""

    def __init__(self, *args, attack: str = "all", **kwargs):
        super().__init__(*args, **kwargs)
        if attack != "all" and attack not in ATTACKS:
            raise ValueError(f"attack must be 'all' or one of {sorted(ATTACKS)}, got {attack!r}")
        self.attack = attack

    @staticmethod
    def name() -> str:
        return "westbench-forger"

    def version(self) -> str:
        return "2.0.0"

    async def setup(self, environment: BaseEnvironment) -> None:
        return None

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        names = ORDER if self.attack == "all" else (self.attack,)
        script = "\n".join(ATTACKS[name] for name in names) + "\necho forged: " + " ".join(names) + "\n"
        result = await environment.exec(command=script, user="root")
        (self.logs_dir / "forger.txt").write_text(
            f"attack {self.attack}\nexit {result.return_code}\n{result.stdout}\n{result.stderr}\n"
        )
