"""README.md's "Judge locally" commands, pasted in order on a fresh clone, work as printed
(issue 12, section 5): each runs in a copy of the repository's files, as a learner who
just cloned it would, and exits as the README says (0 accepted or fine, 1 another verdict).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The starter raises NotImplementedError and the quiz's answers are null: neither is
# accepted, so their runs are exit 1 ("1 any other verdict"); everything else is exit 0.
EXPECTED_EXIT = {
    "python judge.py list": 0,
    "python judge.py show kv-bytes-per-token --lang zh": 0,
    "python judge.py init kv-bytes-per-token .": 0,
    "python judge.py run kv-bytes-per-token kv_bytes_per_token.py": 1,
    "python judge.py run kv-bytes-per-token kv_bytes_per_token.py --show-test > test_case.py": 1,
    # Your own arguments: the starter raises on them too.
    'echo \'{"config": {"num_hidden_layers": 2, "num_attention_heads": 4, '
    '"hidden_size": 64}, "kv_dtype": "float32"}\' > args.json': 0,
    "python judge.py run kv-bytes-per-token kv_bytes_per_token.py --input args.json": 1,
    "python judge.py init self-test . && python judge.py run self-test self_test.json": 1,
}
# Every problem's whole self-check is the authors' command and takes minutes: run elsewhere.
NOT_WALKED = {"python judge.py check"}


def readme_commands() -> list[str]:
    """The first indented block of "## Judge locally", each line without its comment."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Judge locally", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"\n\n((?:    .*\n)+)", section)
    assert block is not None, "the section starts with an indented block of commands"
    lines = [line.strip() for line in block.group(1).splitlines()]
    return [re.split(r"\s{2,}# ", line)[0].strip() for line in lines if line]


@pytest.fixture
def fresh_clone(tmp_path: Path) -> Path:
    """The repository's tracked files, as they are now, in a folder of their own."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to list the repository's files")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60
    )
    clone = tmp_path / "practice"
    for name in listed.stdout.decode().split("\0"):
        source = REPO / name
        if name and source.is_file():  # a file deleted in the working tree is not cloned
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    return clone


def test_the_readme_lists_exactly_the_commands_this_test_walks() -> None:
    """A command added to the README needs its exit code here, or this test fails."""
    assert sorted(readme_commands()) == sorted([*EXPECTED_EXIT, *NOT_WALKED])


def test_the_readme_commands_pasted_in_order_on_a_fresh_clone_work_as_printed(
    fresh_clone: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_PROBLEMS", "PYTHONPATH")}
    env["LANG"] = "en_US.UTF-8"
    python = shlex.quote(sys.executable)  # `python` as the reader's own interpreter
    for command in readme_commands():
        if command in NOT_WALKED:
            continue
        shell = re.sub(r"(^|&& )python ", rf"\g<1>{python} ", command)
        proc = subprocess.run(
            ["bash", "-c", shell], cwd=fresh_clone, env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert proc.returncode == EXPECTED_EXIT[command], (command, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
    assert (fresh_clone / "kv_bytes_per_token.py").is_file()  # "writes ./kv_bytes_per_token.py"
    # The test --show-test wrote fails where the judge said, as the README promises.
    test = subprocess.run(
        [sys.executable, "test_case.py"], cwd=fresh_clone, env=env, capture_output=True,
        timeout=60,
    )  # fmt: skip
    assert test.returncode != 0 and (fresh_clone / "test_case.py").read_text().strip()
