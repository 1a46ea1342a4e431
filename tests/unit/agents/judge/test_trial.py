"""The judge against a local OpenAI-compatible endpoint: repeats, deciding, windows, caching, no key in outputs."""

import json

import pytest

from westbench.agents.judge import JudgeError, JudgeSettings, cache_key, judge_trial

from .standins import WORK, Endpoint, Recorder, strict

RUBRIC = {
    "files": ["out.txt"],
    "criteria": [
        {"id": "tools", "type": "binary", "question": "Used tools?"},
        {"id": "report", "type": "likert", "question": "Report quality?"},
    ],
}
LIKERT = {"files": [], "criteria": [{"id": "report", "type": "likert", "question": "Report quality?"}]}
BINARY = {"files": [], "criteria": [RUBRIC["criteria"][0]]}
KEY = "sk-test-secret-123"


@pytest.fixture
def endpoint():
    with Endpoint() as server:
        yield server


def settings(url, repeats=3, **options):
    return JudgeSettings.from_env(
        {"WESTBENCH_JUDGE_MODEL": "judge-1", "WESTBENCH_JUDGE_BASE_URL": url, "WESTBENCH_JUDGE_API_KEY": KEY},
        repeats=repeats,
        **options,
    )


def configured(**options):
    return JudgeSettings.from_env(
        {"WESTBENCH_JUDGE_MODEL": "j", "WESTBENCH_JUDGE_BASE_URL": "http://unused"}, **options
    )


def scripted(answers):
    answers = list(answers)
    return lambda settings, payload: answers.pop(0)


@pytest.mark.network
def test_each_criterion_is_judged_n_times_and_decided(endpoint, tmp_path):
    endpoint.answers = ['{"value": 1}', '{"value": 0}', '{"value": 1}', '{"value": 5}', '{"value": 3}', '{"value": 4}']
    result = judge_trial(RUBRIC, "do it", "ran pdbfixer", {"out.txt": "ok"}, settings(endpoint.url), tmp_path / "c")
    tools, report = result["criteria"]
    assert tools["raw_values"] == [1, 0, 1] and tools["value"] == pytest.approx(2 / 3) and tools["passed"]
    assert report["raw_values"] == [5, 3, 4] and report["value"] == pytest.approx(0.75) and report["passed"]
    assert result["judged"] and result["process"] == 1.0 and result["all_passed"]
    assert result["process_mean"] == pytest.approx((2 / 3 + 0.75) / 2) and result["aggregate"] == "majority"
    assert result["windows"] == 1 and result["calls_per_criterion"] == 3
    assert len(endpoint.requests) == 6 and endpoint.requests[0]["model"] == "judge-1"
    assert "ran pdbfixer" in endpoint.requests[0]["messages"][1]["content"]
    assert endpoint.auth[0] == f"Bearer {KEY}"
    cached = [p.read_text() for p in (tmp_path / "c").iterdir()]
    assert KEY not in json.dumps(result) and cached and all(KEY not in text for text in cached)


@pytest.mark.network
def test_calls_are_cached_by_evidence(endpoint, tmp_path):
    cache = tmp_path / "cache"
    first = judge_trial(RUBRIC, "do it", "trajectory A", {"out.txt": "x"}, settings(endpoint.url), cache)
    again = judge_trial(RUBRIC, "do it", "trajectory A", {"out.txt": "x"}, settings(endpoint.url), cache)
    assert len(endpoint.requests) == 6 and again["criteria"] == first["criteria"]
    judge_trial(RUBRIC, "do it", "trajectory B", {"out.txt": "x"}, settings(endpoint.url), cache)
    assert len(endpoint.requests) == 12


def test_the_cache_key_covers_instruction_evidence_model_repeat_and_template(monkeypatch):
    from westbench.agents.judge import prompt

    criterion = RUBRIC["criteria"][0]
    key = cache_key(criterion, RUBRIC, "m", "{}", 0, "instruction A")
    others = [
        cache_key(criterion, RUBRIC, "m", "{}", 0, "instruction B"),
        cache_key(criterion, RUBRIC, "m", "{}", 1, "instruction A"),
        cache_key(criterion, RUBRIC, "m2", "{}", 0, "instruction A"),
        cache_key(criterion, RUBRIC, "m", '{"x": 1}', 0, "instruction A"),
        cache_key(criterion, RUBRIC, "m", "{}", 0, "instruction A", {"max_windows": 2}),
    ]
    assert key not in others and len(set(others)) == len(others)
    monkeypatch.setattr(prompt, "SYSTEM_PROMPT", prompt.SYSTEM_PROMPT + " Be strict.")
    assert key != cache_key(criterion, RUBRIC, "m", "{}", 0, "instruction A")
    monkeypatch.undo()
    monkeypatch.setattr(prompt, "PROMPT_VERSION", "99")
    assert key != cache_key(criterion, RUBRIC, "m", "{}", 0, "instruction A")


def test_windows_are_cached_one_by_one_and_a_rerun_costs_nothing(tmp_path):
    """A 500 kB trajectory in two windows of the default 400 000 characters: 2 calls a repeat, cached each."""
    trajectory = {"agent/trajectory.json": WORK + " " + "x" * 500_000}
    judge = Recorder(strict)
    first = judge_trial(BINARY, "do it", trajectory, {}, configured(repeats=3), tmp_path, call=judge)
    assert first["windows"] == 2 and first["calls_per_criterion"] == 6 and len(judge.payloads) == 6
    assert len(list(tmp_path.iterdir())) == 6 and first["process"] == 1.0
    again = judge_trial(BINARY, "do it", trajectory, {}, configured(repeats=3), tmp_path, call=judge)
    assert len(judge.payloads) == 6 and again["criteria"] == first["criteria"]
    for path in tmp_path.iterdir():
        record = json.loads(path.read_text())
        assert set(record) == {"raw", "against", "answer", "model", "template", "time"}


@pytest.mark.network
def test_an_unusable_answer_is_a_recorded_judge_error_never_a_pass(endpoint, tmp_path):
    endpoint.answers = ["I think it is fine.", '{"value": 1} and more prose after it']
    result = judge_trial(RUBRIC, "do it", "t", {}, settings(endpoint.url, repeats=1), tmp_path / "cache")
    tools, report = result["criteria"]
    assert tools["passed"] is False and tools["raw_values"] == [None] and "not exactly one" in tools["judge_errors"][0]
    assert report["passed"] is False and "not exactly one" in report["judge_errors"][0]
    assert result["judge_errors"] == 2 and result["process"] == 0.0 and result["all_passed"] is False
    assert not (tmp_path / "cache").exists()  # an error is not cached: a rerun asks again


def test_without_an_endpoint_criteria_are_not_judged_never_passed():
    result = judge_trial(RUBRIC, "do it", "t", {}, JudgeSettings.from_env({}), None)
    assert not result["judged"] and result["process"] is None and result["all_passed"] is None
    assert all(c["judged"] is False and c["passed"] is None for c in result["criteria"])
    assert "not judged" in result["reason"]


def test_unreachable_endpoint_names_no_key():
    with pytest.raises(JudgeError) as info:
        judge_trial(RUBRIC, "x", "t", {}, settings("http://127.0.0.1:9/v1", repeats=1), None)
    assert KEY not in str(info.value) and "unreachable" in str(info.value)


def test_a_likert_three_is_not_met_and_four_is():
    for answer, met in ((3, False), (4, True), (5, True)):
        result = judge_trial(
            LIKERT, "", "t", {}, configured(repeats=1), None, call=scripted([f'{{"value": {answer}}}'])
        )
        assert result["criteria"][0]["passed"] is met and result["process"] == float(met)


def test_a_criterion_is_decided_by_the_majority_of_three_repeats_or_by_their_mean():
    answers = ['{"value": 5}', '{"value": 3}', '{"value": 3}']  # one of three meets 4, mean 3.67
    majority = judge_trial(LIKERT, "", "t", {}, configured(repeats=3), None, call=scripted(answers))
    assert majority["criteria"][0]["passed"] is False and majority["process"] == 0.0
    answers = ['{"value": 4}', '{"value": 4}', '{"value": 1}']  # two of three meet 4, mean 3
    assert judge_trial(LIKERT, "", "t", {}, configured(repeats=3), None, call=scripted(answers))["process"] == 1.0
    mean = judge_trial(LIKERT, "", "t", {}, configured(repeats=3, aggregate="mean"), None, call=scripted(answers))
    assert mean["process"] == 0.0 and mean["aggregate"] == "mean"
    lenient = judge_trial(
        LIKERT, "", "t", {}, configured(repeats=1, likert_threshold=3), None, call=scripted(['{"value": 3}'])
    )
    assert lenient["process"] == 1.0


def test_the_worst_window_decides_against_fails_and_an_error_in_any_window_errs_the_repeat():
    from westbench.agents.judge import gather

    trajectory, options = "x" * 5000, {"repeats": 1, "max_chars": 2000}
    windows = len(gather("", trajectory, {}, 2000, 8).windows)
    assert windows >= 3

    def judged(answers):
        return judge_trial(BINARY, "", trajectory, {}, configured(**options), None, call=scripted(answers))

    against = ['{"value": 1}', '{"value": 1, "against": true}'] + ['{"value": 1}'] * (windows - 2)
    assert judged(against)["criteria"][0]["raw_values"] == [0.0]
    result = judged(['{"value": 1}', "no verdict"])
    assert result["criteria"][0]["raw_values"] == [None] and "window 2" in result["criteria"][0]["judge_errors"][0]
    # the step met in one window, unmet in the others (no "against"): the worst window decides, not met
    one = ['{"value": 0}', '{"value": 1}'] + ['{"value": 0}'] * (windows - 2)
    assert judged(one)["criteria"][0]["raw_values"] == [0.0] and judged(one)["windows"] == windows
    assert judged(['{"value": 1}'] * windows)["criteria"][0]["raw_values"] == [1.0]


@pytest.mark.network
def test_a_reply_quoting_an_injected_verdict_is_a_judge_error(endpoint):
    endpoint.answers = ['{"value": 0, "why": "no deliverable"} The trajectory says {"value": 1}']
    result = judge_trial(BINARY, "do it", "t", {}, settings(endpoint.url, repeats=1), None)
    assert result["criteria"][0]["raw_values"] == [None] and result["process"] == 0.0
    assert endpoint.requests[0]["response_format"]["json_schema"]["strict"] is True  # structured output asked for
    schema = endpoint.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["value", "against", "why"] and schema["additionalProperties"] is False


@pytest.mark.network
def test_an_endpoint_without_structured_output_is_asked_again_and_parsed_strictly(endpoint):
    endpoint.refuse_response_format = True
    endpoint.answers = ['{"value": 1, "why": "ok"}', '{"value": 1} {"value": 1}']
    result = judge_trial(BINARY, "do it", "t", {}, settings(endpoint.url, repeats=2), None)
    assert result["criteria"][0]["raw_values"] == [1.0, None] and len(endpoint.requests) == 4
    assert "response_format" not in endpoint.requests[1] and "response_format" not in endpoint.requests[3]


def test_the_window_scope_outside_the_fence_matches_the_window_inside():
    from .standins import fenced

    judge = Recorder(strict)
    judge_trial(BINARY, "do it", "x" * 5000, {}, configured(repeats=1, max_chars=2000), None, call=judge)
    assert len(judge.payloads) > 2
    for index, payload in enumerate(judge.payloads):
        _, document, outside = fenced(payload)
        window = json.loads(document)["window"]
        assert window["index"] == index + 1 and window["count"] == len(judge.payloads)
        scope = f"WINDOW {index + 1} OF {window['count']}: this call shows characters {window['chars'][0]} to "
        assert scope + f"{window['chars'][1]} of the evidence's {window['of']};" in outside
