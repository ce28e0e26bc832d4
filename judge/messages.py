"""Every sentence the judge says to a learner, in English and Chinese, and a message as data.

The core never writes a sentence into a report by itself: it builds a `Message` (a catalog
key and its arguments) and the report carries both the English text, for consumers that
read `message` as they always have, and the key and arguments, so that a page can say it
again in whichever language its reader chose, long after the run (reports are stored).

Templates name their arguments as `{name}` and nothing else (no format specs, no literal
braces): an argument is already text, an int, or another `Message`, so the Python renderer
here and the browser's (web/frontend/src/results.js, fed `catalog_json()` at build time)
substitute the same way and always agree. Text the submission chose (an exception's message,
a path into its value) travels as an argument and is never translated.
"""

from __future__ import annotations

import json
import re

from judge.record import record

LANGS = ("en", "zh")
_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")

CATALOG: dict[str, dict[str, str]] = {
    # Text that is already whole: a submission's exception message, a detail the judge
    # received as text. Rendered as it is in every language.
    "raw": {"en": "{text}", "zh": "{text}"},
    # Verdict names.
    "verdict.IE": {"en": "Internal error", "zh": "判题内部错误"},
    "verdict.CE": {"en": "Compile error", "zh": "编译错误"},
    "verdict.RE": {"en": "Runtime error", "zh": "运行错误"},
    "verdict.MLE": {"en": "Memory limit exceeded", "zh": "超出内存限制"},
    "verdict.TLE": {"en": "Time limit exceeded", "zh": "超出时间限制"},
    "verdict.OLE": {"en": "Output limit exceeded", "zh": "输出超出限制"},
    "verdict.WA": {"en": "Wrong answer", "zh": "答案错误"},
    "verdict.AC": {"en": "Accepted", "zh": "通过"},
    # Kinds of value, as the checkers name them.
    "kind.none": {"en": "None", "zh": "None"},
    "kind.a": {"en": "a {name}", "zh": "{name}"},
    "kind.an": {"en": "an {name}", "zh": "{name}"},
    "kind.tensor": {"en": "a tensor", "zh": "张量"},
    # Where a difference is: a trace's step, a path into the value.
    "check.step": {"en": "step {index} ({op})", "zh": "第 {index} 步（{op}）"},
    "check.where_reason": {"en": "at {where}: {reason}", "zh": "{where} 处：{reason}"},
    "check.step_reason": {"en": "{step}: {reason}", "zh": "{step}：{reason}"},
    "check.step_where_reason": {
        "en": "{step} at {where}: {reason}",
        "zh": "{step}，{where} 处：{reason}",
    },
    "check.with_detail": {"en": "{text} ({detail})", "zh": "{text}（{detail}）"},
    "check.with_values": {
        "en": "{text}; got {got}, expected {expected}",
        "zh": "{text}；实际 {got}，期望 {expected}",
    },
    # How a value differs.
    "check.kind": {"en": "expected {expected}, got {got}", "zh": "期望 {expected}，实际是 {got}"},
    "check.values_differ": {"en": "values differ", "zh": "值不同"},
    "check.item_count": {
        "en": "wrong number of items (got {got})",
        "zh": "元素个数不对（实际有 {got} 个）",
    },
    "check.item_count_hidden": {"en": "wrong number of items", "zh": "元素个数不对"},
    "check.expected_count": {"en": "expected {expected}", "zh": "应有 {expected} 个"},
    "check.missing_key": {"en": "missing key {key}", "zh": "缺少键 {key}"},
    "check.unexpected_key": {"en": "unexpected key {key}", "zh": "多了键 {key}"},
    "check.unexpected_key_hidden": {"en": "an unexpected key", "zh": "多了一个不该有的键"},
    "check.not_number": {"en": "expected a number, got {got}", "zh": "期望一个数，实际是 {got}"},
    "check.too_large": {
        "en": "the number is too large for a float",
        "zh": "这个数太大，float 表示不了",
    },
    "check.non_finite_number": {
        "en": "got a non-finite number ({value})",
        "zh": "得到了非有限的数（{value}）",
    },
    "check.tolerance": {
        "en": "outside the tolerance (rel {rel}, abs {abs})",
        "zh": "超出容差（相对 {rel}，绝对 {abs}）",
    },
    "check.off_by": {"en": "off by {diff}", "zh": "相差 {diff}"},
    "check.not_tensor": {"en": "expected a tensor, got {got}", "zh": "期望一个张量，实际是 {got}"},
    "check.dtype": {
        "en": "dtype {got}, expected {expected}",
        "zh": "dtype 是 {got}，应为 {expected}",
    },
    "check.shape": {
        "en": "shape {got}, expected {expected}",
        "zh": "形状是 {got}，应为 {expected}",
    },
    "check.shape_hidden": {"en": "wrong shape", "zh": "形状不对"},
    "check.first_difference": {
        "en": "first difference at index {index}",
        "zh": "第一处不同在下标 {index}",
    },
    "check.non_finite_at": {
        "en": "non-finite value {value} at index {index}",
        "zh": "下标 {index} 处是非有限值 {value}",
    },
    "check.non_finite_hidden": {
        "en": "a non-finite value where a finite one was expected",
        "zh": "应为有限值的地方出现了非有限值",
    },
    "check.not_close": {
        "en": "not close: max abs error {max_abs}, max rel error {max_rel}, "
        "first bad index {index} (rtol {rtol}, atol {atol})",
        "zh": "误差过大：最大绝对误差 {max_abs}，最大相对误差 {max_rel}，"
        "第一个超差的下标 {index}（rtol {rtol}，atol {atol}）",
    },
    "check.not_close_hidden": {
        "en": "not close (rtol {rtol}, atol {atol})",
        "zh": "误差过大（rtol {rtol}，atol {atol}）",
    },
    # What happened on a case that gave no answer to compare.
    "case.not_run": {"en": "not run", "zh": "未运行"},
    "case.not_timed": {
        "en": "not timed: an earlier case failed, so this run gets no score",
        "zh": "未计时：前面已有用例出错，这次运行不会有分数",
    },
    "case.uncomparable": {
        "en": "the judge cannot compare the returned value ({type})",
        "zh": "判题器无法比较返回的值（{type}）",
    },
    # case.raised, case.own_exception, case.bad_value_hidden and case.protocol_hidden are no
    # longer said (a hidden case has one sentence per verdict, hidden.*); they stay so that
    # reports stored before still read in both languages.
    "case.raised": {"en": "{name} raised", "zh": "抛出了 {name}"},
    "case.own_exception": {
        "en": "an exception of the submission's own class",
        "zh": "提交代码自定义的异常",
    },
    # An exception raised inside a trace's step (the step as check.step names it).
    "case.raised_at": {"en": "{step} raised {error}", "zh": "{step}抛出异常：{error}"},
    "case.bad_value": {
        "en": "returned a value the judge cannot compare: {detail}",
        "zh": "返回了判题器无法比较的值：{detail}",
    },
    "case.bad_value_hidden": {
        "en": "returned a value the judge cannot compare (not plain data)",
        "zh": "返回了判题器无法比较的值（不是普通数据）",
    },
    "case.protocol_hidden": {
        "en": "broke the judge's protocol on its result channel",
        "zh": "破坏了结果通道上的判题协议",
    },
    "case.ended": {"en": "the process ended before answering", "zh": "进程还没给出答案就结束了"},
    "case.out_of_memory": {
        "en": "ran out of memory (MemoryError)",
        "zh": "内存耗尽（MemoryError）",
    },
    "case.time_limit": {"en": "time limit exceeded", "zh": "超出时间限制"},
    "case.cpu_limit": {"en": "CPU time limit exceeded", "zh": "超出 CPU 时间限制"},
    "case.oom_killed": {
        "en": "killed for exceeding the memory limit",
        "zh": "超出内存限制，进程被终止",
    },
    "case.device_memory": {
        "en": "killed for holding {used} MiB of GPU memory; this problem allows {limit} MiB, "
        "CUDA's own context included",
        "zh": "占用了 {used} MiB 显存，超出本题允许的 {limit} MiB（含 CUDA 自身上下文），"
        "进程被终止",
    },
    "case.killed": {"en": "the process was killed by {signal}", "zh": "进程被 {signal} 终止"},
    "case.exit_code": {
        "en": "the process exited with code {code} before answering",
        "zh": "进程还没给出答案就退出了，退出码 {code}",
    },
    # Said by the parent's session (judge/run/session.py, judge/problem/limits.py) as English text;
    # `recognise` turns these back into messages.
    "case.printed_too_much": {
        "en": "printed more than {limit} bytes",
        "zh": "输出超过了 {limit} 字节",
    },
    "case.too_much_data": {
        "en": "returned far more data than this problem's answers hold",
        "zh": "返回的数据远多于本题答案的大小",
    },
    "case.trailing": {
        "en": "wrote bytes that are not an answer to the result channel after its last answer",
        "zh": "最后一个答案之后，又向结果通道写入了不是答案的字节",
    },
    "case.no_load_ack": {
        "en": "the child did not acknowledge the load",
        "zh": "子进程没有确认加载",
    },
    "case.cpu_hidden": {
        "en": "used more CPU time than this case allows (a multiple of the reference's)",
        "zh": "CPU 时间超出本用例允许的上限（参考解用时的若干倍）",
    },
    # Where the job was stopped, not what it would have needed: the judge kills it at the
    # allowance, so a figure just above it read like a near miss. Stored reports carry a
    # `used` argument too, which this wording leaves out.
    "case.cpu_public": {
        "en": "stopped at {allowed} s of CPU time, this case's allowance; the reference used "
        "{reference} s (the allowance is {factor} x that + {slack} s)",
        "zh": "CPU 时间到 {allowed} 秒（本用例的上限）时被终止；参考解用了 {reference} 秒"
        "（上限是它的 {factor} 倍 + {slack} 秒）",
    },
    # A calibrated public case that passed: how much of its CPU allowance it used.
    "case.cpu_within": {
        "en": "{used} s of CPU time of the {allowed} s allowed (the reference used {reference} s)",
        "zh": "用了 {used} 秒 CPU 时间，本用例允许 {allowed} 秒（参考解用了 {reference} 秒）",
    },
    # A speed problem's score (judge/problem/speed_spec.py), in `judge run` and on the page.
    "speed.score": {
        "en": "score {value} {unit} (median of {repetitions}; q1 {q1}, q3 {q3})",
        "zh": "得分 {value} {unit}（{repetitions} 次的中位数；q1 {q1}，q3 {q3}）",
    },
    "speed.relative": {
        "en": "{relative}x the reference, timed in turn with it (spread {spread}%)",
        "zh": "是参考实现的 {relative} 倍（与参考实现轮流计时，离散 {spread}%）",
    },
    "speed.unsteady": {
        "en": "not scored: timed in turn with the reference, the ratios spread by {spread}% "
        "(a score needs {limit}% or less), so the machine was busy while this ran. Submit "
        "again",
        "zh": "未计分：与参考实现轮流计时，两者之比离散了 {spread}%（计分要求不超过 {limit}%），"
        "说明运行时机器正忙。请再提交一次",
    },
    # A calibrated case on a CUDA job: its rule counts wall time, measured by the parent
    # (judge/problem/limits.py RuleClock), since the kernel's CPU count misses the GPU's work.
    "case.wall_hidden": {
        "en": "took more time than this case allows on the GPU (a multiple of the reference's)",
        "zh": "在 GPU 上用时超出本用例允许的上限（参考解用时的若干倍）",
    },
    "case.wall_public": {
        "en": "stopped at {allowed} s of wall time on the GPU, this case's allowance; the "
        "reference took {reference} s (the allowance is {factor} x that + {slack} s)",
        "zh": "在 GPU 上用时到 {allowed} 秒（本用例的上限）时被终止；参考解用了 {reference} 秒"
        "（上限是它的 {factor} 倍 + {slack} 秒）",
    },
    "case.wall_within": {
        "en": "{used} s of wall time on the GPU of the {allowed} s allowed (the reference took "
        "{reference} s)",
        "zh": "在 GPU 上用了 {used} 秒，本用例允许 {allowed} 秒（参考解用了 {reference} 秒）",
    },
    "case.too_fast": {
        "en": "answered faster than this machine's memory allows ({rate} GB/s of the bytes "
        "every answer must read; the ceiling is {ceiling} GB/s): the answer was not computed "
        "by this run",
        "zh": "答得比这台机器的内存带宽还快（每个答案至少要读的字节折合 {rate} GB/s，"
        "上限是 {ceiling} GB/s）：这个答案不是这次运行算出来的",
    },
    # A hidden case's one sentence per verdict (grading/case_grading.py, conceal): the judge's own
    # words, never a detail the submission chose (it knows the case's inputs).
    "hidden.wrong_answer": {
        "en": "wrong answer (a hidden case shows only its verdict)",
        "zh": "答案错误（隐藏用例只显示结果）",
    },
    "hidden.runtime_error": {
        "en": "raised an exception or ended before answering (a hidden case shows only its "
        "verdict)",
        "zh": "抛出了异常，或者还没给出答案就结束了（隐藏用例只显示结果）",
    },
    "hidden.time_limit": {
        "en": "over the time limit, wall clock or CPU time (a hidden case shows only its verdict)",
        "zh": "超出时间限制（墙钟时间或 CPU 时间；隐藏用例只显示结果）",
    },
    "hidden.memory_limit": {
        "en": "over the memory limit (a hidden case shows only its verdict)",
        "zh": "超出内存限制（隐藏用例只显示结果）",
    },
    "hidden.output_limit": {
        "en": "printed or returned more than allowed (a hidden case shows only its verdict)",
        "zh": "输出或返回的数据超出限制（隐藏用例只显示结果）",
    },
    "hidden.too_fast": {
        "en": "answered faster than this machine's memory allows: the answer was not computed "
        "by this run",
        "zh": "答得比这台机器的内存带宽还快：这个答案不是这次运行算出来的",
    },
    # Loading the submission (judge/run/child.py writes these as English text).
    "load.missing_names": {
        "en": "the submission must define {names}",
        "zh": "提交的代码必须定义 {names}",
    },
    "load.too_deep": {
        "en": "{type}: the code is nested too deeply to compile",
        "zh": "{type}：代码嵌套太深，无法编译",
    },
    # A part of mini_llm the problem asks the learner to write (problem.toml [submission]
    # withheld), refused in the job; the parts a problem may withhold, one key each.
    "load.withheld": {
        "en": "{module} is not available in this problem: it holds {part}, which would do "
        "part of what you are asked to write yourself (the statement says what you may use)",
        "zh": "本题不能用 {module}：它包含“{part}”，会替你完成本题要你自己写的一部分"
        "（题面写明了可以用哪些）",
    },
    "part.mini_llm.kv_cache": {"en": "the KV cache", "zh": "KV Cache"},
    "part.mini_llm.paged_cache": {
        "en": "the paged KV cache's reads and writes",
        "zh": "分页 KV Cache 的读写",
    },
    "part.mini_llm.generation": {"en": "the decoding loop", "zh": "解码循环"},
    "part.mini_llm.pool_runner": {
        "en": "keys and values read and written through block tables",
        "zh": "通过块表读写 K、V",
    },
    "part.mini_llm.serving_trace": {
        "en": "the serving driver and its decoding",
        "zh": "服务驱动及其解码",
    },
    "part.mini_llm.attention": {
        "en": "the attention computation (RoPE, the mask, attending over the cache)",
        "zh": "注意力的计算（RoPE、掩码、在缓存上做注意力）",
    },
    "part.unknown": {"en": "this part", "zh": "这一部分"},
    # A quiz's answers.
    "quiz.right": {"en": "right", "zh": "正确"},
    "quiz.not_answered": {"en": "not answered", "zh": "未作答"},
    "quiz.at_submit": {
        "en": "checked when you submit: Run does not have this answer",
        "zh": "提交后才判：运行（Run）时没有这道题的答案",
    },
    "quiz.tolerance": {"en": "outside the tolerance", "zh": "超出容差"},
    # A count has no tolerance: "outside the tolerance" would suggest it had one.
    "quiz.wrong_number": {
        "en": "not the right number (this answer is exact)",
        "zh": "数值不对（这道题要求精确相等）",
    },
    "quiz.wrong_option": {"en": "not the right option", "zh": "选项不对"},
    "quiz.wrong_options": {"en": "not the right set of options", "zh": "选项组合不对"},
    "quiz.public_right": {
        "en": "right at the public points; the judge checks more when you submit",
        "zh": "在公开的点上都对；提交后判题器还会检查更多的点",
    },
    "quiz.at_point": {"en": "at {point}", "zh": "在 {point} 处"},
    "quiz.at_hidden_point": {"en": "at a point the judge chose", "zh": "在判题器选的一个点上"},
    "quiz.no_value": {"en": "has no value {where}: {error}", "zh": "{where}没有值：{error}"},
    "quiz.differs": {
        "en": "differs from the expected value {where} (yours gives {got})",
        "zh": "{where}与期望值不同（你的式子得 {got}）",
    },
    "quiz.differs_hidden": {
        "en": "right at the public points, but differs {where}",
        "zh": "在公开的点上都对，但{where}不同",
    },
    # `judge run`'s own lines (judge/commands/render.py).
    # Why a job cannot be judged on this host (judge/problem/device.py choose_device).
    "device.only_cuda": {
        "en": "{slug} is judged only on a CUDA GPU, and this judge runs jobs on the CPU "
        "(JUDGE_DEVICE=cpu): use auto or cuda on a machine with an NVIDIA GPU",
        "zh": "{slug} 只能在 CUDA GPU 上判题，而本判题机只在 CPU 上运行任务（JUDGE_DEVICE=cpu）："
        "请在有 NVIDIA GPU 的机器上使用 auto 或 cuda",
    },
    "device.only_cpu": {
        "en": "{slug} is judged only on the CPU, and this judge runs jobs on CUDA "
        "(JUDGE_DEVICE=cuda): use auto or cpu",
        "zh": "{slug} 只能在 CPU 上判题，而本判题机在 CUDA 上运行任务（JUDGE_DEVICE=cuda）："
        "请使用 auto 或 cpu",
    },
    "device.no_gpu": {
        "en": "{slug} needs a CUDA GPU to be judged, and this machine has none (no /dev/nvidia0)",
        "zh": "{slug} 需要 CUDA GPU 才能判题，而这台机器没有（没有 /dev/nvidia0）",
    },
    "cli.header": {
        "en": "#|case|verdict|time|message",
        "zh": "#|用例|结果|用时|说明",
    },
    "cli.passed": {"en": "{passed}/{total} cases passed", "zh": "通过 {passed}/{total} 个用例"},
    "cli.internal_error": {
        "en": "IE  Internal error: the judge failed, not your code. Please report it.",
        "zh": "IE  判题内部错误：出错的是判题器，不是你的代码。请报告这个问题。",
    },
    "cli.at_line": {"en": " (line {line})", "zh": "（第 {line} 行）"},
    # What follows a verdict's name before its detail: Chinese takes a full-width colon.
    "cli.colon": {"en": ": ", "zh": "："},
    "cli.row_values": {
        "en": "{text}: got {got}, expected {expected}",
        "zh": "{text}；实际 {got}，期望 {expected}",
    },
    "cli.first_failure": {
        "en": "first failure: {name} ({verdict})",
        "zh": "第一个失败的用例：{name}（{verdict}）",
    },
    "cli.got": {"en": "got:      ", "zh": "实际：    "},
    "cli.expected": {"en": "expected: ", "zh": "期望：    "},
    "cli.whole_value": {
        "en": "the whole returned value{where}, ^ under the first difference:",
        "zh": "完整的返回值{where}，^ 指出第一处不同：",
    },
    "cli.whole_where": {"en": " at {where}", "zh": "（{where}）"},
    "cli.right": {"en": "{name}: right. ", "zh": "{name}：正确。"},
    "cli.withheld": {
        "en": "output printed during the hidden cases is withheld (it could reveal their inputs)",
        "zh": "隐藏用例运行时的输出不显示（它可能泄露隐藏用例的输入）",
    },
    "cli.no_sandbox": {
        "en": "note: running without a sandbox (fine for your own code; the server sandboxes)",
        "zh": "注意：本次运行没有沙箱（判自己的代码没问题；服务器上会用沙箱）",
    },
    "cli.ms": {"en": "{ms} ms", "zh": "{ms} 毫秒"},
    "cli.input": {"en": "input:", "zh": "输入："},
    "cli.omitted": {
        "en": "the arguments are {chars} characters of JSON, too long to show here",
        "zh": "参数的 JSON 有 {chars} 个字符，太长，这里不显示",
    },
    "cli.steps": {
        "en": "calls, steps 0-{step} (step {step} is the first that differs):",
        "zh": "调用，第 0-{step} 步（第 {step} 步是第一个不同的步骤）：",
    },
    "cli.steps_raised": {
        "en": "calls, steps 0-{step} (step {step} raised):",
        "zh": "调用，第 0-{step} 步（第 {step} 步抛出了异常）：",
    },
    "cli.cut": {
        "en": "(the trace {key} is shown up to step {step} of its {length} operations)",
        "zh": "（轨迹 {key} 只显示到第 {step} 步，共 {length} 个操作）",
    },
    "cli.state_before": {
        "en": (
            "state before step {step}, as step {previous} ({op}) left it (got and expected agree):"
        ),
        "zh": "第 {step} 步之前的状态，即第 {previous} 步（{op}）之后（实际与期望一致）：",
    },
    "cli.state_before_raised": {
        "en": "state before step {step}, as the reference's step {previous} ({op}) left it:",
        "zh": "第 {step} 步之前的状态，即参考解第 {previous} 步（{op}）之后：",
    },
    "cli.subject": {
        "en": (
            "step {step} acts on {subject}; its state after step {last} ({op}), "
            "the last step on it:"
        ),
        "zh": (
            "第 {step} 步作用于 {subject}；它在第 {last} 步（{op}）之后的状态，"
            "那是作用于它的上一步："
        ),
    },
    "cli.printed": {"en": "printed during case {name}", "zh": "用例 {name} 运行时的打印输出"},
    "cli.reproduce": {"en": "reproduce it as a test: {command}", "zh": "把它复现为测试：{command}"},
    "cli.all_output": {
        "en": "your {stream} (all of it, in order)",
        "zh": "你的 {stream}（全部，按顺序）",
    },
    # The other commands' own lines (judge/commands: cli.py, selfcheck.py). A command a hint
    # names is written `judge ...`: the CLI swaps in the command as it was typed.
    "cli.list_header": {"en": "problem|kind|tier|points|title", "zh": "题目|类型|层级|分值|标题"},
    "cli.show_quiz": {
        "en": "quiz · {points} points · {count} questions",
        "zh": "测验 · {points} 分 · 共 {count} 题",
    },
    "cli.show_code": {
        "en": "tier {tier} · {points} points · {time} s per case · {memory} MiB · tags: {tags}",
        "zh": "层级 {tier} · {points} 分 · 每个用例 {time} 秒 · {memory} MiB · 标签：{tags}",
    },
    "cli.show_define": {"en": "define: {names}", "zh": "需要定义：{names}"},
    "cli.init_wrote": {
        "en": "wrote {target}; judge it with: {run}",
        "zh": "已写入 {target}；用这条命令判题：{run}",
    },
    "cli.init_wrote_quiz": {
        "en": "wrote {target}: replace each null with your answer (`{show}`\n"
        "lists the questions); judge it with: {run}",
        "zh": "已写入 {target}：把每个 null 换成你的答案（`{show}`\n"
        "会列出题目）；用这条命令判题：{run}",
    },
    "cli.not_a_folder": {"en": "{path} is not a folder", "zh": "{path} 不是文件夹"},
    "cli.already_exists": {
        "en": "{path} already exists; use --force to overwrite it",
        "zh": "{path} 已经存在；要覆盖它请加 --force",
    },
    "cli.unknown_problem": {
        "en": "unknown problem {slug}; `judge list` shows them all",
        "zh": "没有题目 {slug}；`judge list` 会列出所有题目",
    },
    "cli.unknown_problem_close": {
        "en": "unknown problem {slug} (did you mean {close}?); `judge list` shows them all",
        "zh": "没有题目 {slug}（你是不是想找 {close}？）；`judge list` 会列出所有题目",
    },
    "cli.usage": {
        "en": "{message} (see `{prog} --help`)",
        "zh": "{message}（用法见 `{prog} --help`）",
    },
    "cli.interrupted": {"en": "interrupted", "zh": "已中断"},
    "cli.json_or_show_test": {
        "en": "--json and --show-test print different things: give one of them",
        "zh": "--json 和 --show-test 输出的内容不同：只能给其中一个",
    },
    "cli.picture_alone": {
        "en": "--picture prints one case's picture only: it does not go with --json or --show-test",
        "zh": "--picture 只输出一个用例的图：不能和 --json 或 --show-test 一起用",
    },
    "cli.no_picture": {
        "en": "case {name} has no picture in this run (a case that did not run, or a "
        "problem whose passing cases draw none)",
        "zh": "本次运行中用例 {name} 没有图（该用例没有运行，或者这道题通过的用例不画图）",
    },
    "cli.no_failing_case": {
        "en": "no public case failed: there is no test to show",
        "zh": "没有失败的公开用例：没有可以显示的测试",
    },
    "cli.no_such_case": {
        "en": "this run has no case {name} (its public cases: {names})",
        "zh": "这次运行没有用例 {name}（公开用例有：{names}）",
    },
    "cli.case_hidden": {
        "en": "case {name} is hidden: only a public case's input can be shown",
        "zh": "用例 {name} 是隐藏用例：只能显示公开用例的输入",
    },
    "cli.case_passed": {
        "en": "case {name} passed: a test is written for a failing case",
        "zh": "用例 {name} 已通过：只为失败的用例生成测试",
    },
    "cli.case_not_run": {
        "en": "case {name} was not run: a test is written for a failing case",
        "zh": "用例 {name} 没有运行：只为失败的用例生成测试",
    },
    "cli.test_too_long": {
        "en": "case {name}'s test would be too long to print; `--json` has its input",
        "zh": "用例 {name} 的测试太长，不打印；`--json` 的输出里有它的输入",
    },
    "cli.torch_needed": {
        "en": "this problem needs PyTorch, which is not installed here; install it with: "
        "{pip} install torch==2.13.0 (or `{make} setup`)",
        "zh": "这道题需要 PyTorch，但这里没有安装；安装命令：{pip} install torch==2.13.0"
        "（或者 `{make} setup`）",
    },
    "cli.slug_reason": {"en": "{slug}: {reason}", "zh": "{slug}：{reason}"},
    "cli.skipped": {"en": "{slug}: skipped, {reason}", "zh": "{slug}：已跳过，{reason}"},
    "cli.no_such_file": {"en": "{path}: no such file", "zh": "{path}：没有这个文件"},
    "cli.is_a_folder": {
        "en": "{path}: is a folder, not a file",
        "zh": "{path}：这是文件夹，不是文件",
    },
    "cli.cannot_read": {"en": "{path}: cannot read ({error})", "zh": "{path}：读不了（{error}）"},
    "cli.progress": {
        "en": "{phase} ({done}/{total} cases run)",
        "zh": "{phase}（已运行 {done}/{total} 个用例）",
    },
    # Where a judging has got to (judge/run/phase.py): the CLI's progress line and the page's.
    "phase.preparing": {
        "en": "preparing the hidden cases: the reference answers them",
        "zh": "正在准备隐藏用例：参考解正在作答",
    },
    "phase.calibrating": {
        "en": "measuring the reference's CPU time",
        "zh": "正在测量参考解的 CPU 时间",
    },
    "phase.case": {"en": "case {step} of {of}", "zh": "第 {step}/{of} 个用例"},
    "phase.warm_up": {
        "en": "warming up before the timed repetitions",
        "zh": "计时之前的预热",
    },
    "phase.timed": {"en": "timed repetition {step} of {of}", "zh": "第 {step}/{of} 次计时重复"},
    "phase.reporting": {"en": "writing the report", "zh": "正在生成报告"},
    "cli.check_header": {"en": "problem||check|detail", "zh": "题目||检查|详情"},
    "cli.check_ok": {"en": "ok", "zh": "通过"},
    "cli.check_fail": {"en": "FAIL", "zh": "失败"},
    "cli.check_summary": {
        "en": "{passed}/{total} problems pass",
        "zh": "{passed}/{total} 道题通过自检",
    },
    "cli.check_failing": {"en": "; failing: {slugs}", "zh": "；未通过：{slugs}"},
    # A learner's own input ("Try your own input", `judge run --input`;
    # judge/problem/custom_input.py, judge/run/custom_run.py).
    "input.not_json": {
        "en": "your input is not JSON{where}: write the arguments as a JSON value, like a "
        "public case's",
        "zh": "你的输入不是 JSON{where}：请像公开用例那样，把参数写成一个 JSON 值",
    },
    "input.at": {"en": " (line {line}, column {column})", "zh": "（第 {line} 行第 {column} 列）"},
    # A problem's own reason (cases.py's validate_args), written by the problem in both
    # languages: each language shows its own argument (tests/judge/test_messages.py).
    "input.both": {"en": "{en}", "zh": "{zh}"},
    "input.bad_text": {
        "en": "a string in your input is not valid Unicode (a lone surrogate such as \\ud800)",
        "zh": "你的输入里有一个字符串不是合法的 Unicode（例如单独的代理项 \\ud800）",
    },
    "input.too_deep": {
        "en": "your input is nested more than {depth} levels deep",
        "zh": "你的输入嵌套超过了 {depth} 层",
    },
    "input.number_out_of_range": {
        "en": "your input has a number outside what the judge takes ({number})",
        "zh": "你的输入里有一个超出判题程序可接受范围的数（{number}）",
    },
    "input.too_large": {
        "en": "your input is larger than {limit} bytes",
        "zh": "你的输入超过了 {limit} 字节",
    },
    "input.wrong_shape": {
        "en": "your input is not shaped like a public case's arguments: {reason}",
        "zh": "你的输入和公开用例的参数形状不一样：{reason}",
    },
    "input.wrong_type": {
        "en": "the arguments must be {expected}, not {got}",
        "zh": "参数应是{expected}，而不是{got}",
    },
    "input.missing_key": {"en": "it lacks the key {key}", "zh": "缺少键 {key}"},
    "input.unknown_key": {
        "en": "it has the key {key}, which no public case has (keys: {keys})",
        "zh": "多了公开用例里没有的键 {key}（可用的键：{keys}）",
    },
    "input.wrong_value_type": {
        "en": "{key} must be {expected}, not {got}",
        "zh": "{key} 应是{expected}，而不是{got}",
    },
    # A problem's declared input rules (problem.toml [input]; judge/problem/input_rules.py):
    # each names the argument by its path in the arguments and says the rule it breaks.
    "input.rule_missing": {"en": "{path} is missing", "zh": "缺少 {path}"},
    "input.rule_type": {
        "en": "{path} must be {expected} (got {got})",
        "zh": "{path} 应是{expected}（实际是 {got}）",
    },
    "input.rule_choices": {
        "en": "{path} must be one of {choices} (got {got})",
        "zh": "{path} 只能是 {choices} 之一（实际是 {got}）",
    },
    "input.rule_min": {
        "en": "{path} must be at least {low} (got {got})",
        "zh": "{path} 不能小于 {low}（实际是 {got}）",
    },
    "input.rule_max": {
        "en": "{path} must be at most {high} (got {got})",
        "zh": "{path} 不能大于 {high}（实际是 {got}）",
    },
    "input.rule_min_len": {
        "en": "{path} must have at least {low} items (it has {got})",
        "zh": "{path} 至少要有 {low} 项（实际有 {got} 项）",
    },
    "input.rule_max_len": {
        "en": "{path} may have at most {high} items (it has {got})",
        "zh": "{path} 最多只能有 {high} 项（实际有 {got} 项）",
    },
    "input.relation_at": {"en": "{path}: {rule}", "zh": "{path}：{rule}"},
    "input.either": {"en": "{first}{rest}", "zh": "{first}{rest}"},
    "input.or": {"en": " or {kind}", "zh": "或{kind}"},
    "input.comma": {"en": ", {kind}{rest}", "zh": "、{kind}{rest}"},
    "input.type_int": {"en": "an integer", "zh": "整数"},
    "input.type_number": {"en": "a number", "zh": "数"},
    "input.type_bool": {"en": "true or false", "zh": "true 或 false"},
    "input.type_string": {"en": "a string", "zh": "字符串"},
    "input.type_list": {"en": "a list", "zh": "列表"},
    "input.type_object": {"en": "an object", "zh": "对象"},
    "input.type_null": {"en": "null", "zh": "null"},
    "input.refused": {
        "en": "the problem refuses these arguments: {reason}",
        "zh": "本题不接受这组参数：{reason}",
    },
    "input.reference_failed": {
        "en": "the reference gave no answer on your input ({verdict}: {reason}); the input "
        "is probably outside what the problem allows",
        "zh": "参考解在你的输入上没有给出答案（{verdict}：{reason}）；"
        "这组输入可能超出了题目允许的范围",
    },
    "input.judge_failed": {
        "en": "the judge could not run your input; try again",
        "zh": "判题程序没能运行你的输入，请再试一次",
    },
    "input.not_code": {
        "en": "{slug} is a quiz: it has no inputs to try",
        "zh": "{slug} 是测验题，没有可以试的输入",
    },
    "cli.input_options": {
        "en": "--input runs your own input only: it does not go with {option}",
        "zh": "--input 只运行你自己的输入，不能和 {option} 一起用",
    },
    "cli.input_title": {"en": "your input ({path}):", "zh": "你的输入（{path}）："},
    "cli.input_reference": {"en": "reference: ", "zh": "参考解：  "},
    "cli.input_yours": {"en": "yours:     ", "zh": "你的：    "},
    "cli.input_same": {
        "en": "same as the reference",
        "zh": "与参考解相同",
    },
    "cli.input_differs": {"en": "differs from the reference", "zh": "与参考解不同"},
    # The text art of a failing public case's picture, as `judge run` prints it
    # (judge/pictures: case_pictures.py, pool_art.py, bar_art.py). Numbers come formatted.
    "picture.expected": {"en": "expected", "zh": "期望"},
    "picture.got": {"en": "got", "zh": "实际"},
    "picture.roofline.head": {
        "en": "roofline (peak {peak} TFLOP/s, {bandwidth} TB/s, ridge {ridge} FLOP/byte):",
        "zh": "屋顶线（峰值 {peak} TFLOP/s，带宽 {bandwidth} TB/s，拐点 {ridge} FLOP/字节）：",
    },
    "picture.roofline.point": {
        "en": "{phase} expected I={want_i} at {want_f} TFLOP/s; got {got}",
        "zh": "{phase} 期望 I={want_i}，{want_f} TFLOP/s；实际 {got}",
    },
    "picture.roofline.no_point": {"en": "no point", "zh": "无法画点"},
    "picture.timeline.legend": {
        "en": "Timeline, one column per step: P prefill chunk, D decode, R recomputed after a "
        "preemption, . waiting; the last row is the blocks the step's batch held",
        "zh": "时间线，每列一步：P 预填充分块，D 解码，R 被抢占后重算，. 等待；"
        "最后一行是该步批次占用的块数",
    },
    "picture.timeline.expected": {
        # Name first, count after: reads right for 1 as for 12 ("recomputations 1").
        "en": "Reference: steps {steps}, prefill chunks {prefill}, decode steps {decode}, "
        "recomputations {recompute}, blocks held at most {peak}",
        "zh": "参考答案：{steps} 步，{prefill} 次预填充分块，{decode} 次解码，{recompute} 次重算，"
        "最多占用 {peak} 个块",
    },
    "picture.timeline.got": {
        # Name first, count after: reads right for 1 as for 12 ("recomputations 1").
        "en": "Yours: steps {steps}, prefill chunks {prefill}, decode steps {decode}, "
        "recomputations {recompute}, blocks held at most {peak}",
        "zh": "你的引擎：{steps} 步，{prefill} 次预填充分块，{decode} 次解码，{recompute} 次重算，"
        "最多占用 {peak} 个块",
    },
    "picture.timeline.none": {
        "en": "Yours: no timeline to draw",
        "zh": "你的引擎：没有可画的时间线",
    },
    "picture.timeline.more": {
        "en": "({steps} more steps in the page's picture)",
        "zh": "（另有 {steps} 步，见网页上的图）",
    },
    "picture.timeline.cut": {
        "en": "(the run went on; the timeline keeps its first {steps} steps)",
        "zh": "（运行仍在继续；时间线只保留前 {steps} 步）",
    },
    "picture.pool.head": {
        "en": 'block pool after step {step} ({op}); "!" marks a block that differs:',
        "zh": "第 {step} 步（{op}）之后的块池；“!” 标出不同的块：",
    },
    "picture.pool.block": {"en": "block", "zh": "块"},
    "picture.pool.free": {
        "en": "free queue, head first: expected [{want}]; got [{got}]",
        "zh": "空闲队列（队首在前）：期望 [{want}]；实际 [{got}]",
    },
    "picture.pool.legend": {
        "en": "sN: held by sequence N; xK: K references; c: cached; f@I: I-th in the free queue",
        "zh": "sN：序列 N 持有；xK：引用计数 K；c：已缓存；f@I：空闲队列中第 I 个",
    },
    # The bars' words: a unit, a row, a part or a list, named by the picture's own data.
    "picture.bars.head_step": {
        "en": 'after step {step} ({op}), in {unit}; "!" marks a part that differs:',
        "zh": "第 {step} 步（{op}）之后，单位：{unit}；“!” 标出不同的部分：",
    },
    "picture.bars.head": {
        "en": 'in {unit}; "!" marks a part that differs:',
        "zh": "单位：{unit}；“!” 标出不同的部分：",
    },
    "picture.bars.blocks": {"en": "blocks", "zh": "块"},
    "picture.bars.tokens": {"en": "token slots", "zh": "token 槽位"},
    "picture.bars.bytes": {"en": "bytes per token", "zh": "每 token 字节"},
    "picture.bars.pool": {"en": "pool", "zh": "块池"},
    "picture.bars.contiguous": {"en": "contiguous", "zh": "连续分配"},
    "picture.bars.paged": {"en": "paged", "zh": "分页"},
    "picture.bars.per_token": {"en": "KV per token", "zh": "每 token 的 KV"},
    "picture.bars.used": {"en": "used", "zh": "已用"},
    "picture.bars.internal": {"en": "internal waste", "zh": "内部浪费"},
    "picture.bars.external": {"en": "external waste", "zh": "外部浪费"},
    "picture.bars.hole": {"en": "largest hole", "zh": "最大空洞"},
    "picture.bars.free": {"en": "free", "zh": "空闲"},
    "picture.bars.k": {"en": "K (keys)", "zh": "K（键）"},
    "picture.bars.v": {"en": "V (values)", "zh": "V（值）"},
    "picture.bars.latent": {"en": "latent", "zh": "潜向量"},
    "picture.bars.rope": {"en": "rope", "zh": "旋转部分"},
    "picture.bars.total": {"en": "total", "zh": "总计"},
    "picture.bars.running": {"en": "running", "zh": "运行"},
    "picture.bars.waiting": {"en": "waiting", "zh": "等待"},
    "picture.bars.preempted": {"en": "preempted", "zh": "被抢占"},
    "picture.bars.gqa": {
        "en": "{layers} layers x 2 (K + V) x {kv_heads} KV heads x {head_dim} head dim"
        " x {bytes} bytes = {total}",
        "zh": "{layers} 层 x 2（K + V）x {kv_heads} 个 KV 头 x 头维度 {head_dim}"
        " x {bytes} 字节 = {total}",
    },
    "picture.bars.mla": {
        "en": "{layers} layers x ({latent} latent + {rope} rope) x {bytes} bytes = {total}",
        "zh": "{layers} 层 x（潜向量 {latent} + 旋转部分 {rope}）x {bytes} 字节 = {total}",
    },
    # The header of a failing case's test file (judge/pictures/reproduce.py): both languages
    # at once, since the file is saved and read away from any language setting.
    "picture.test_save": {
        "en": "Save it as {test} beside your solution ({solution}) and run:",
        "zh": "保存为 {test}，放在你的解答（{solution}）旁边，然后运行：",
    },
}


@record
class Message:
    """One sentence as data: a catalog key and its arguments, rendered on demand."""

    key: str
    args: tuple[tuple[str, str | int | Message], ...] = ()

    def render(self, lang: str = "en") -> str:
        templates = CATALOG[self.key]
        template = templates.get(lang) or templates["en"]
        values = dict(self.args)

        def value(match: re.Match[str]) -> str:
            arg = values[match.group(1)]
            return arg.render(lang) if isinstance(arg, Message) else str(arg)

        return _FIELD.sub(value, template)

    @property
    def en(self) -> str:
        return self.render("en")

    def args_dict(self) -> dict[str, object]:
        """The arguments as JSON data: a nested message is {"key", "args"}."""
        return {
            name: {"key": arg.key, "args": arg.args_dict()} if isinstance(arg, Message) else arg
            for name, arg in self.args
        }

    @classmethod
    def from_parts(cls, key: object, args: object) -> Message | None:
        """A stored key and arguments read back; None where the catalog no longer knows
        the key or the arguments do not fit it (the stored text is then what is shown)."""
        if type(key) is not str or key not in CATALOG or type(args) is not dict:
            return None
        parsed: list[tuple[str, str | int | Message]] = []
        for name, arg in args.items():
            if type(arg) is dict:
                inner = cls.from_parts(arg.get("key"), arg.get("args"))
                if inner is None:
                    return None
                parsed.append((str(name), inner))
            elif type(arg) in (str, int):
                parsed.append((str(name), arg))
            else:
                return None
        message = cls(key, tuple(parsed))
        if not all(set(_FIELD.findall(t)) <= dict(parsed).keys() for t in CATALOG[key].values()):
            return None
        return message


def say(key: str, /, **args: str | int | Message) -> Message:
    """The message `key` with `args`; a key the catalog lacks is a KeyError here, at the
    call, rather than when someone reads the report."""
    if key not in CATALOG:
        raise KeyError(f"no message {key!r} in judge.messages.CATALOG")
    return Message(key, tuple(args.items()))


def raw(text: str) -> Message:
    """Text that is already whole (a submission's own message): the same in every language."""
    return Message("raw", (("text", text),))


def render(message: str, key: object, args: object, lang: str) -> str:
    """A stored message in `lang`: from its key and arguments where the catalog knows them,
    else the stored text (a report from before the catalog, or from a newer one)."""
    parsed = Message.from_parts(key, args)
    return parsed.render(lang) if parsed is not None else message


def case_message(case: dict[str, object], lang: str) -> str:
    """A case of a report's dict (`CaseResult.to_dict`) -> its message in `lang`."""
    return render(
        str(case.get("message", "")), case.get("message_key"), case.get("message_args"), lang
    )


def verdict_label(verdict: str, lang: str) -> str:
    return say(f"verdict.{verdict}").render(lang)


def recognise(text: str, keys: tuple[str, ...]) -> Message:
    """English text another module wrote, as the message among `keys` whose English
    template it matches (arguments taken from it); else the text as it is."""
    for key in keys:
        template = CATALOG[key]["en"]
        names = _FIELD.findall(template)
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else "(.+?)"
            for i, part in enumerate(_FIELD.split(template))
        )
        match = re.fullmatch(pattern, text)
        if match:
            return Message(key, tuple(zip(names, match.groups(), strict=True)))
    return raw(text)


LOAD_SAYS = ("load.missing_names", "load.too_deep")


def with_message(error: dict[str, object], message: Message) -> dict[str, object]:
    """A compile error's dict saying `message`: its English text, key and arguments."""
    return error | {
        "message": message.en,
        "message_key": message.key,
        "message_args": message.args_dict(),
    }


def load_error_said(error: dict[str, object]) -> dict[str, object]:
    """A load error from the child, its message as the catalog's where it is one."""
    return with_message(error, recognise(str(error.get("message", "")), LOAD_SAYS))


def lang_of(environ: dict[str, str]) -> str:
    """The language a terminal asks for: LC_ALL, then LANG (zh_* -> zh, else en)."""
    value = environ.get("LC_ALL") or environ.get("LANG") or ""
    return "zh" if value.lower().startswith("zh") else "en"


# The words of `judge run`'s text art of a picture: never a report's message (the browser
# draws the pictures itself, web/frontend/src/*_picture.js), so they stay out of app.js.
TEXT_ART = "picture."


def catalog_json() -> str:
    """The catalog as JSON, for the browser's renderer (built into app.js): every message a
    report can carry."""
    said = {key: texts for key, texts in CATALOG.items() if not key.startswith(TEXT_ART)}
    return json.dumps(said, ensure_ascii=False, sort_keys=True)


if __name__ == "__main__":  # python -m judge.messages: the JSON the front-end build embeds
    print(catalog_json())
