"""Trial records as the leaderboard reads them (one dict per trial), for the agent tests."""


def trial(task, agent, correctness, status=None, attempt=1, model="none", process=None, criteria=None, **extra):
    return {
        "task": task,
        "agent": agent,
        "model": model,
        "attempt": attempt,
        "correctness": correctness,
        "status": status or ("passed" if correctness == 1 else "failed"),
        "process": process,
        "all_criteria_passed": criteria,
        **extra,
    }
