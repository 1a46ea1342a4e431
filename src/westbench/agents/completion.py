"""Completion language in an agent's final message: does it claim the work is done, and does it hedge?

FrontierChallenge's finding is that most failed runs still end by claiming completion; this module says, by
stated rules, which final messages claim it. Two lists of English patterns (case-insensitive), matched
anywhere in the message:

* :data:`CLAIMS`: the work stated as done: "the task is complete", "all deliverables are written",
  "I have computed ...", "successfully created ...", "all checks pass", "task complete".
* :data:`LIMITS`: a limitation stated: "could not", "unable to", "failed to", "not complete", "partially",
  "refuse", "infeasible", "still missing", "TODO".

A message is classified as

* ``claims`` (claims completion): a claim and no stated limitation;
* ``hedged`` (claims completion with a stated limitation): both;
* ``limitation`` (reports a limitation, no claim): a refusal or a report of what is not done;
* ``silent``: neither (e.g. only a plan);
* ``no message``: the trajectory has no agent text at all.

A negated claim ("the task is not complete") is not a claim: the claim patterns need the verb right before the
state ("is complete", "are written"), and "not complete" is a limitation. The completion-claim rate counts
``claims`` and ``hedged``. These are heuristics over English text, stated so that they can be checked; the
judge, not these rules, assesses whether a claim is true.

Examples
--------
>>> classify("All deliverables are written and the task is complete.")
'claims'
>>> classify("I computed the profile, but could not run the bootstrap: the error bars are missing.")
'hedged'
>>> classify("This cannot be done here: PLUMED is not installed, so I refuse the metadynamics run.")
'limitation'
>>> classify("The task is not complete yet."), classify("Plan: inspect the inputs."), classify(None)
('limitation', 'silent', 'no message')
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE
_DONE = r"(?:complete|completed|done|finished|accomplished|in place|ready|written|created|generated|produced|saved)"
#: The work stated as done (module docstring).
CLAIMS = tuple(
    re.compile(pattern, _FLAGS)
    for pattern in (
        r"\b(?:task|work|job|analysis|everything|all (?:of )?(?:the )?(?:steps|tasks|deliverables|files|outputs))\b"
        rf"[^.\n]{{0,60}}?\b(?:is|are|has been|have been|was|were)\s+(?:now\s+|all\s+)?(?:successfully\s+)?{_DONE}\b",
        r"\b(?:I|we)\s*(?:have|'ve)?\s+(?:now\s+)?(?:successfully\s+)?(?:completed|finished|created|written|wrote|"
        r"generated|produced|computed|delivered|fixed|solved|implemented|saved)\b",
        r"\bsuccessfully\s+(?:completed|created|wrote|written|generated|computed|produced|ran|run|finished|fixed|"
        r"saved|built)\b",
        r"\b(?:all|every)\s+(?:the\s+)?(?:checks?|tests?|requirements?|deliverables?|files?)\s+(?:pass|passed|"
        r"(?:are|were|have been|is)\s+(?:now\s+)?(?:met|satisfied|written|produced|created|in place|present))\b",
        rf"\bdeliverables?\b[^.\n]{{0,60}}?\b(?:is|are|have been|has been|were|was)\s+(?:now\s+|all\s+)?{_DONE}\b",
        r"\b(?:task|work)\s+(?:is\s+)?(?:now\s+)?(?:complete|completed|done|finished)\b",
    )
)
#: A limitation stated (module docstring).
LIMITS = tuple(
    re.compile(pattern, _FLAGS)
    for pattern in (
        r"\b(?:could not|couldn't|cannot|can't|can not|unable to|was not able to|were not able to|failed to|"
        r"did not manage|not possible|impossible|infeasible|not feasible)\b",
        r"\bnot\s+(?:yet\s+|fully\s+|entirely\s+)?(?:complete|completed|finished|done|verified|run|working)\b",
        r"\b(?:incomplete|partially|partial|unfinished|unresolved)\b",
        r"\b(?:refuse|refused|refusing|decline|declined|declining)\b",
        r"\b(?:still\s+(?:missing|fails?|failing|needs?|broken)|remains?\s+(?:missing|to be done|unresolved))\b",
        r"\bTODO\b|\bleft\s+(?:to do|undone|unfinished)\b",
    )
)
CLASSES = ("claims", "hedged", "limitation", "silent", "no message")
#: The classes counted as a completion claim.
CLAIMING = ("claims", "hedged")


def claims_completion(message: str | None) -> bool:
    """Whether ``message`` states the work done (any of :data:`CLAIMS`).

    >>> claims_completion("I have written /app/output/rg.csv."), claims_completion("Next I will write rg.csv.")
    (True, False)
    """
    return bool(message) and any(pattern.search(message) for pattern in CLAIMS)


def states_limitation(message: str | None) -> bool:
    """Whether ``message`` states a limitation (any of :data:`LIMITS`).

    >>> states_limitation("I was unable to converge the optimisation."), states_limitation("All done.")
    (True, False)
    """
    return bool(message) and any(pattern.search(message) for pattern in LIMITS)


def classify(message: str | None) -> str:
    """The class of a final message (one of :data:`CLASSES`; module docstring)."""
    if message is None or not message.strip():
        return "no message"
    claim, limit = claims_completion(message), states_limitation(message)
    if claim:
        return "hedged" if limit else "claims"
    return "limitation" if limit else "silent"
