"""Quiz problems: a submission is an answer sheet (JSON), judged in the trusted process
against answers.toml; nothing is executed (judge/grading/quiz_grading.py)."""

from __future__ import annotations

from judge.grading import environment
from judge.grading.report import Report
from judge.kinds.kind import BUNDLE_FORMAT, ProblemKindType, title_line
from judge.kinds.proof import EXTRA_SEEDS, Check, fails_where_declared, why
from judge.messages import LANGS, Message, say
from judge.problem.cases import PUBLIC_SEED
from judge.problem.spec import ProblemKind, ProblemSpec, ProblemToml, load_quiz
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from judge.problem.limits import Limits
    from judge.quiz.questions import Question, Quiz
    from judge.run.interfaces import Launcher
    from judge.run.judge_source import TrustedInputs
    from judge.run.phase import Progress


class QuizKind(ProblemKindType):
    """problem.toml's `kind = "quiz"`: questions.toml and answers.toml, no code."""

    name = ProblemKind.QUIZ
    runs_code = False  # answers are data: nothing runs, no sandbox is needed
    starter_suffix = ".json"
    expect_key = "_expect: "  # a wrong sheet declares where it fails in a key of its own

    def load(self, toml: ProblemToml) -> ProblemSpec:
        return load_quiz(toml)

    def judge(
        self,
        problem: ProblemSpec,
        source: str,
        *,
        seed: int | None = None,
        launcher: Launcher | None = None,
        limits: Limits | None = None,
        progress: Progress | None = None,
        trusted: TrustedInputs | None = None,
        solution: str = "",
    ) -> Report:
        """The answer sheet, judged in this process: no launcher, limits or expected
        observations; a failure of the judge is still IE, never WA."""
        from judge.run.judge_source import internal_error, seed_kind
        from judge.run.source_check import validate_source

        source = validate_source(source)
        try:
            from judge.grading.quiz_grading import judge_answers  # the answer machinery

            outcome = judge_answers(_quiz(problem), source, PUBLIC_SEED if seed is None else seed)
        except Exception:  # noqa: BLE001 - the sheet was read strictly; whatever broke is the judge
            import traceback

            return internal_error(problem, seed, traceback.format_exc())
        return Report(
            problem=problem.slug,
            version=problem.version,
            verdict=outcome.verdict,
            score=problem.points if outcome.verdict is Verdict.AC else 0,
            cases=outcome.cases,
            time_ms=outcome.time_ms,
            compile_error=outcome.compile_error,
            seed=seed_kind(seed),
            environment=environment.describe(problem.tier, "quiz"),
        )

    def public_bundle(self, problem: ProblemSpec) -> dict[str, object]:
        """What public_run.run_public needs to check shapes and the expressions at their
        public points; `starter` is the blank answer sheet. Never answers.toml, its
        explanations or hidden points."""
        return {
            "format": BUNDLE_FORMAT,
            "kind": str(self.name),
            "problem": problem.summary(),
            "statements": {lang: problem.statement(lang) for lang in LANGS},
            "starter": problem.starter_source(),
            "questions": _quiz(problem).public_questions(),
        }

    def self_check(
        self, problem: ProblemSpec, launcher: Launcher | None, checks: list[Check]
    ) -> None:
        """answers.toml answers every question; its own answers are AC on three seeds, the
        blank sheet and `{}` are not, and every solutions/wrong/*.json sheet fails where its
        "_expect" key declares. `launcher` is not needed: nothing runs."""
        quiz = _quiz(problem)
        missing = [q.id for q in quiz.questions if q.id not in quiz.keys]
        checks.append(
            Check(
                "answers.toml answers every question",
                not missing,
                f"{len(quiz.keys)}/{len(quiz.questions)} questions"
                + (f" — no answer for {', '.join(missing)}" if missing else ""),
            )
        )
        if missing:
            return  # every other check would be the judge failing (IE) on those questions
        for seed in (PUBLIC_SEED, *EXTRA_SEEDS):
            report = self.judge(problem, problem.reference_source(), seed=seed)
            detail = f"{report.passed}/{len(report.cases)} questions" + why(report)
            ok = report.verdict is Verdict.AC
            checks.append(Check(f"answer key AC (seed {seed})", ok, detail))
        for name, sheet in (("blank sheet", problem.starter_source()), ("empty sheet", "{}")):
            report = self.judge(problem, sheet)
            ok = report.verdict not in (Verdict.AC, Verdict.IE)
            checks.append(Check(f"{name} not AC", ok, report.verdict.value + why(report)))
        wrong = problem.wrong_solutions()
        if len(wrong) < 2:
            detail = f"{len(wrong)} in solutions/wrong/; at least 2 are required"
            checks.append(Check("wrong sheets", False, detail))
        for solution in wrong:
            report = self.judge(problem, solution.path.read_text(encoding="utf-8"))
            checks.append(fails_where_declared(solution, report, self.expect_key))

    def details(self, problem: ProblemSpec) -> dict[str, object]:
        return {"questions": [q.to_dict() for q in _quiz(problem).questions]}

    def public_details(self, problem: ProblemSpec) -> dict[str, object]:
        # public by design: no answer, only the public points' values
        return {"questions": _quiz(problem).public_questions()}

    def show_text(self, problem: ProblemSpec, lang: str) -> str:
        questions = _quiz(problem).questions
        count = say("cli.show_quiz", points=str(problem.points), count=len(questions))
        lines = (title_line(problem, lang), count.render(lang) + "\n", problem.statement(lang))
        return "\n".join((*lines, quiz_text(questions, lang)))

    def init_said(self, target: Path, show: str, run: str) -> Message:
        return say("cli.init_wrote_quiz", target=str(target), show=show, run=run)


def _quiz(problem: ProblemSpec) -> Quiz:
    if problem.quiz is None:
        raise RuntimeError(f"{problem.slug} is a quiz without questions")
    return problem.quiz


# Keyed by QuestionType's values, so that showing a quiz imports no more of the quiz machinery.
_ANSWER_FORM = {
    "number": "a number",
    "choice": 'one option id, such as "{first}"',
    "choices": 'a list of option ids, such as ["{first}"]',
    "expression": 'an expression in {variables}, in a string, such as "{first} + 1"',
}


def quiz_text(questions: Sequence[Question], lang: str) -> str:
    """A quiz's questions for a terminal: prompt, options, and the form of each answer."""
    blocks = []
    for i, q in enumerate(questions, 1):
        first = q.options[0].id if q.options else (q.variables[0] if q.variables else "")
        form = _ANSWER_FORM[q.type.value].format(first=first, variables=", ".join(q.variables))
        if q.unit:
            form += f" ({q.unit[lang]})"
        lines = [f"{i}. {q.id}", "   " + q.prompt[lang].strip().replace("\n", "\n   ")]
        lines += [f"   - {o.id}: {o.text[lang]}" for o in q.options]
        if q.public_points:
            points = "; ".join(", ".join(f"{k}={v}" for k, v in p.items()) for p in q.public_points)
            lines.append(f"   public points (Run checks these): {points}")
        lines.append(f"   answer: {form}")
        blocks.append("\n".join(lines))
    return "\n\n" + "\n\n".join(blocks)
