"""The UI's message catalog in English and Chinese; the language comes from the `lang`
cookie, else the browser's Accept-Language, else English."""

from __future__ import annotations

from flask import g, has_request_context, request

from judge.messages import LANGS

COOKIE = "lang"

MESSAGES: dict[str, dict[str, str]] = {
    "site_name": {"en": "Inference Practice", "zh": "推理练习"},
    "nav_problems": {"en": "Problems", "zh": "题目"},
    "nav_submissions": {"en": "Submissions", "zh": "提交记录"},
    "nav_leaderboard": {"en": "Leaderboard", "zh": "排行榜"},
    "nav_admin": {"en": "Admin", "zh": "管理"},
    "nav_login": {"en": "Log in", "zh": "登录"},
    "nav_logout": {"en": "Log out", "zh": "退出"},
    "nav_register": {"en": "Register", "zh": "注册"},
    "switch_lang": {"en": "中文", "zh": "English"},
    "col_order": {"en": "#", "zh": "序号"},
    "col_problem": {"en": "Problem", "zh": "题目"},
    "col_chapter": {"en": "Chapter", "zh": "章节"},
    "col_tier": {"en": "Tier", "zh": "类型"},
    "col_tags": {"en": "Tags", "zh": "标签"},
    "col_points": {"en": "Points", "zh": "分值"},
    # After a number ("100 分"): the column's own word reads oddly there.
    "points_unit": {"en": "points", "zh": "分"},
    "unit_ms": {"en": "{ms} ms", "zh": "{ms} 毫秒"},
    "unit_s": {"en": "{s} s", "zh": "{s} 秒"},
    "time_total_tip": {
        "en": "the cases' times added up (a hidden case's rounded up); the submission's page "
        "has each case's",
        "zh": "各用例用时之和（隐藏用例的用时向上取整）；每个用例的用时见提交详情页",
    },
    "filter_button": {"en": "Filter", "zh": "筛选"},
    "col_progress": {"en": "Your progress", "zh": "你的进度"},
    "col_user": {"en": "User", "zh": "用户"},
    "col_rank": {"en": "Rank", "zh": "名次"},
    "col_solved": {"en": "Solved", "zh": "通过"},
    "col_score": {"en": "Score", "zh": "得分"},
    "col_penalty": {"en": "Penalty", "zh": "罚时"},
    "col_last_improved": {"en": "Last improvement", "zh": "最后提升"},
    "col_verdict": {"en": "Verdict", "zh": "结果"},
    "col_status": {"en": "Status", "zh": "状态"},
    "col_time": {"en": "Time", "zh": "用时"},
    "col_submitted": {"en": "Submitted", "zh": "提交时间"},
    "col_case": {"en": "Case", "zh": "用例"},
    "col_message": {"en": "Message", "zh": "信息"},
    "col_speed_score": {"en": "Score (median)", "zh": "成绩（中位数）"},
    "col_speed_range": {"en": "Range (q1 – q3)", "zh": "区间（q1 – q3）"},
    "col_speed_iqr": {"en": "IQR", "zh": "四分位距"},
    "speed_rank_rule": {
        "en": "Each user's fastest accepted run, measured on the judge's hardware. Scores whose "
        "ranges (first to third quartile of the timed repetitions) overlap are not told apart: "
        "rank = 1 + the number of entries whose q1 is above this entry's q3.",
        "zh": "每位用户最快的一次通过提交，在评测机上测得。区间（计时重复的第一到第三四分位数）"
        "重叠的成绩不分先后：名次 = 1 + q1 高于本条 q3 的条目数。",
    },
    "col_hardware": {"en": "Hardware", "zh": "硬件"},
    "progress_solved": {"en": "solved", "zh": "已通过"},
    "progress_tried": {"en": "tried", "zh": "尝试过"},
    "progress_none": {"en": "—", "zh": "—"},
    "tier_browser": {"en": "browser", "zh": "浏览器"},
    "tier_torch": {"en": "torch", "zh": "torch"},
    "hidden_badge": {"en": "hidden", "zh": "已隐藏"},
    "public_case": {"en": "public", "zh": "公开"},
    "hidden_case": {"en": "hidden", "zh": "隐藏"},
    "run": {"en": "Run", "zh": "运行"},
    "submit": {"en": "Submit", "zh": "提交"},
    "login_to_submit": {"en": "Log in to submit", "zh": "登录后提交"},
    "your_submissions": {"en": "Your submissions", "zh": "你的提交"},
    "no_submissions": {"en": "No submissions yet.", "zh": "还没有提交。"},
    "limits": {"en": "Limits", "zh": "限制"},
    "time_per_case": {"en": "time per case", "zh": "每个用例时限"},
    # The problem page's limits, one sentence a language (not the words of one laid out
    # in the order of the other).
    "limits_line": {
        "en": "Limits: {time} s per case, {memory} MB memory",
        "zh": "限制：每个用例 {time} 秒，内存 {memory} MB",
    },
    "memory": {"en": "memory", "zh": "内存"},
    "username": {"en": "Username", "zh": "用户名"},
    "password": {"en": "Password", "zh": "密码"},
    "login_title": {"en": "Log in", "zh": "登录"},
    "register_title": {"en": "Create an account", "zh": "创建账号"},
    "no_account": {"en": "No account yet?", "zh": "还没有账号？"},
    "have_account": {"en": "Have an account?", "zh": "已有账号？"},
    "speed_board": {"en": "Speed board", "zh": "速度榜"},
    "points_board": {"en": "Points board", "zh": "积分榜"},
    "board_empty": {"en": "Nobody is on this board yet.", "zh": "榜上还没有人。"},
    "code": {"en": "Code", "zh": "代码"},
    "cases": {"en": "Cases", "zh": "用例"},
    "compile_error": {"en": "Compile error", "zh": "编译错误"},
    "rejudge": {"en": "Rejudge", "zh": "重判"},
    "hide": {"en": "Hide", "zh": "隐藏"},
    "unhide": {"en": "Show", "zh": "显示"},
    "version": {"en": "Version", "zh": "版本"},
    "all_versions": {"en": "all versions", "zh": "所有版本"},
    "prev_page": {"en": "Newer", "zh": "较新"},
    "next_page": {"en": "Older", "zh": "较旧"},
    "status_queued": {"en": "queued", "zh": "排队中"},
    "status_running": {"en": "running", "zh": "评测中"},
    "status_done": {"en": "done", "zh": "已完成"},
    "error_title": {"en": "Something went wrong", "zh": "出错了"},
    "back_home": {"en": "Back to the problems", "zh": "返回题目列表"},
    "no_problems": {"en": "No problems are published yet.", "zh": "还没有发布题目。"},
    "nav_account": {"en": "Password", "zh": "修改密码"},
    "password_title": {"en": "Change your password", "zh": "修改密码"},
    "current_password": {"en": "Current password", "zh": "当前密码"},
    "new_password": {"en": "New password", "zh": "新密码"},
    "password_changed": {
        "en": "Password changed. Your other sessions and all your API tokens have ended.",
        "zh": "密码已修改。你的其他会话和全部 API 令牌都已失效。",
    },
    "password_change_note": {
        "en": "Changing it logs out every other browser and revokes all your API tokens.",
        "zh": "修改后，其他所有浏览器都会退出登录，你的全部 API 令牌也会被撤销。",
    },
    # Messages of API errors and form errors ({name} fields are filled by say()).
    "err_not_json": {
        "en": "send the body as JSON (Content-Type: application/json)",
        "zh": "请以 JSON 发送请求体（Content-Type: application/json）",
    },
    "err_json_invalid": {
        "en": "the body is not valid UTF-8 JSON",
        "zh": "请求体不是有效的 UTF-8 JSON",
    },
    "err_json_object": {"en": "the JSON body must be an object", "zh": "JSON 请求体必须是一个对象"},
    "err_json_deep": {
        "en": "the JSON body is nested deeper than {depth} levels",
        "zh": "JSON 请求体的嵌套超过了 {depth} 层",
    },
    "err_surrogate": {
        "en": "{field} must be valid Unicode text (it holds a lone surrogate such as \\ud800)",
        "zh": "{field} 必须是有效的 Unicode 文本（其中有单独的代理码位，例如 \\ud800）",
    },
    "err_nul": {
        "en": "{field} must not contain NUL characters",
        "zh": "{field} 不能包含 NUL 字符",
    },
    "err_nul_path": {
        "en": "no such page or resource: {field} in the address holds a NUL character (%00), "
        "which no name contains",
        "zh": "没有这个页面或资源：地址中的 {field} 含有 NUL 字符（%00），任何名字都不含这个字符",
    },
    "diff_not_aligned": {
        "en": "These two submissions differ in too many places to line them up: the {lines} "
        "lines between their common beginning and end are shown as removed, then added.",
        "zh": "这两次提交的差异太多，无法逐行对齐：两者开头和结尾相同部分之间的 {lines} 行"
        "显示为先删除、再新增。",
    },
    "err_bad_host": {
        "en": "the Host header is not a host name (a label is empty or longer than 63 "
        "characters, or it holds a character no host name has)",
        "zh": "Host 请求头不是合法的主机名"
        "（其中某一段为空或超过 63 个字符，或含有主机名里不会有的字符）",
    },
    "err_missing": {"en": "{field} is required", "zh": "缺少 {field}"},
    "err_not_string": {"en": "{field} must be a string", "zh": "{field} 必须是字符串"},
    "err_query_int": {"en": "{field} must be an integer", "zh": "{field} 必须是整数"},
    "err_query_range": {
        "en": "{field} must be between {low} and {high}",
        "zh": "{field} 必须在 {low} 到 {high} 之间",
    },
    "err_query_text": {
        "en": "{field} must be printable text of at most {max} characters",
        "zh": "{field} 必须是不超过 {max} 个字符的可打印文本",
    },
    "err_username": {
        "en": "username must be 3-32 characters: letters, digits, '_', '.', '-' "
        "(not starting with '.' or '-')",
        "zh": "用户名须为 3-32 个字符，只能用字母、数字、'_'、'.'、'-'（不能以 '.' 或 '-' 开头）",
    },
    # The registration form's rules, shown before anything is refused (the same as the
    # refusals' sentences: web/accounts/auth.py's USERNAME_RE and password lengths).
    "username_rule": {
        "en": "3-32 characters: letters, digits, '_', '.', '-' (not starting with '.' or '-'); "
        "names that differ only in case are one name.",
        "zh": "3-32 个字符，只能用字母、数字、'_'、'.'、'-'（不能以 '.' 或 '-' 开头）；"
        "只有大小写不同的用户名算同一个。",
    },
    "password_rule": {"en": "{low}-{high} characters.", "zh": "{low}-{high} 个字符。"},
    "err_username_taken": {
        "en": "username {name!r} is taken (names that differ only in case are one name)",
        "zh": "用户名 {name!r} 已被占用（不区分大小写）",
    },
    "err_password": {
        "en": "password must be {low}-{high} characters",
        "zh": "密码须为 {low}-{high} 个字符",
    },
    "err_credentials": {"en": "wrong username or password", "zh": "用户名或密码错误"},
    "err_current_password": {"en": "the current password is wrong", "zh": "当前密码错误"},
    "err_login_required": {
        "en": "log in (or send an API token) to do this",
        "zh": "请先登录（或发送 API 令牌）",
    },
    "err_token_header": {
        "en": "the Authorization header must be 'Bearer <token>'",
        "zh": "Authorization 请求头必须是 'Bearer <令牌>'",
    },
    "err_token_unknown": {
        "en": "the API token is unknown or was revoked",
        "zh": "API 令牌不存在或已被撤销",
    },
    "err_token_expired": {
        "en": "the API token expired at {when}; get a new one with POST /api/token",
        "zh": "API 令牌已于 {when} 过期；请用 POST /api/token 获取新令牌",
    },
    "err_token_lifetime": {
        "en": "expires_in_days must be an integer from 1 to {max}",
        "zh": "expires_in_days 必须是 1 到 {max} 之间的整数",
    },
    "err_token_label": {
        "en": "label must be a string of at most {max} characters",
        "zh": "label 必须是不超过 {max} 个字符的字符串",
    },
    "err_handbook_token": {
        "en": "a token made for a handbook's page submits and runs only; manage tokens and "
        "the password on the platform's own pages",
        "zh": "为手册页面签发的令牌只能提交和运行；请在平台自己的页面上管理令牌和密码",
    },
    "err_no_bearer": {
        "en": "this request carries no bearer token; revoke one by id: DELETE /api/tokens/<id>",
        "zh": "此请求没有携带令牌；请按编号撤销：DELETE /api/tokens/<id>",
    },
    "err_unknown_token": {"en": "you have no token {id}", "zh": "你没有编号为 {id} 的令牌"},
    "err_csrf": {
        "en": "the form or request is missing a valid CSRF token; reload the page",
        "zh": "表单或请求缺少有效的 CSRF 令牌；请刷新页面",
    },
    "err_unknown_submission": {"en": "no submission {id}", "zh": "没有编号为 {id} 的提交"},
    "err_not_a_quiz": {"en": "{slug} is not a quiz", "zh": "{slug} 不是问答题"},
    "err_unknown_question": {
        "en": "no question {id} in this quiz",
        "zh": "这份问答里没有题目 {id}",
    },
    "tier_quiz": {"en": "quiz", "zh": "问答"},
    "quiz_submit": {"en": "Submit answers", "zh": "提交答案"},
    "quiz_choose_one": {"en": "Choose one.", "zh": "选一项。"},
    "quiz_choose_all": {"en": "Choose every option that applies.", "zh": "选出所有正确的选项。"},
    "quiz_number_hint": {"en": "A number.", "zh": "填一个数。"},
    "quiz_expression_hint": {
        "en": "A formula in {names}, e.g. {example}.",
        "zh": "用 {names} 写一个式子，例如 {example}。",
    },
    "quiz_unit": {"en": "unit: {unit}", "zh": "单位：{unit}"},
    "quiz_explanation": {"en": "Explanation", "zh": "解析"},
    "quiz_give_up": {"en": "Give up: show the explanation", "zh": "放弃：查看解析"},
    "quiz_give_up_note": {
        "en": "Once you have seen an explanation, your later answers to this quiz still get "
        "verdicts but no points.",
        "zh": "看过任何一题的解析后，之后提交的答案仍会评判，但不再计分。",
    },
    "quiz_run": {"en": "Run: check at the public points", "zh": "运行：在公开取值点上检查"},
    "quiz_public_points": {
        "en": "Run checks your expression at: {points}",
        "zh": "运行会在这些点上检查你的式子：{points}",
    },
    "quiz_ran": {
        "en": "Run checked every answer's form and each expression at its public points; "
        "numbers and choices are checked when you submit. Nothing was submitted.",
        "zh": "运行检查了每个答案的格式，以及每个式子在公开取值点上的值；"
        "数值题和选择题在提交后判分。这次运行没有提交。",
    },
    "quiz_marked_by": {
        "en": "Marked below by your latest submission:",
        "zh": "下面的标记来自你最近一次提交：",
    },
    "quiz_wrong_questions": {
        "en": "questions not right: {numbers}",
        "zh": "没答对的题：{numbers}",
    },
    "quiz_all_checked_right": {
        "en": "nothing checked is wrong",
        "zh": "检查过的都没错",
    },
    "quiz_question_n": {"en": "Question {n}", "zh": "第 {n} 题"},
    "quiz_back": {
        "en": "Back to the quiz: your answers are there, the wrong ones marked",
        "zh": "回到问答：你的答案都在那里，答错的题已标出",
    },
    "quiz_given_up": {
        "en": "You gave up on this question; your later answers to this quiz earn no points.",
        "zh": "你已放弃这一题；之后提交的答案不再计分。",
    },
    "err_rate": {
        "en": "too many {what}: at most {count} per {span}; try again in {retry} s",
        "zh": "{what}过多：每{span}最多 {count} 次；请在 {retry} 秒后重试",
    },
    "err_limits_unavailable": {
        "en": "the server is busy and cannot take this request now; try again in {retry} s",
        "zh": "服务器繁忙，暂时无法处理这个请求；请在 {retry} 秒后重试",
    },
    "what_logins": {"en": "log-in attempts", "zh": "登录尝试"},
    "what_failed_logins": {
        "en": "failed log-ins for this name from your address",
        "zh": "从你的地址登录此用户名的失败次数",
    },
    "what_accounts": {"en": "new accounts", "zh": "新账号"},
    "what_submissions": {"en": "submissions", "zh": "提交"},
    "what_submissions_ip": {"en": "submissions from this IP", "zh": "来自此 IP 的提交"},
    "err_code_size": {
        "en": "the code is {size} bytes; the limit is {limit} bytes",
        "zh": "代码有 {size} 字节，上限是 {limit} 字节",
    },
    "err_code_nul": {
        "en": "the code contains a NUL byte at offset {offset}",
        "zh": "代码在偏移 {offset} 处含有 NUL 字节",
    },
    "err_code_utf8": {
        "en": "the code is not valid UTF-8 (a lone surrogate at byte {at})",
        "zh": "代码不是有效的 UTF-8（第 {at} 字节处是单独的代理码位）",
    },
    "err_code_empty": {"en": "the code is empty", "zh": "代码为空"},
    "what_runs": {"en": "runs on the server", "zh": "服务器运行"},
    "what_runs_ip": {"en": "runs on the server from this IP", "zh": "来自此 IP 的服务器运行"},
    "what_quiz_runs_ip": {"en": "quiz checks from this IP", "zh": "来自此 IP 的测验检查"},
    "err_repeat_pending": {
        "en": "this code is the same as your submission #{id} to this problem, which is still "
        "being judged: wait for its verdict instead of submitting it again",
        "zh": "这份代码与你对本题的第 {id} 号提交完全相同，而那次提交仍在评测中："
        "请等待它的结果，不要重复提交",
    },
    "err_repeat_judged": {
        "en": "this code is the same as your submission #{id} to this problem, already judged "
        "({verdict}): change the code before you submit again",
        "zh": "这份代码与你对本题的第 {id} 号提交完全相同，那次提交已评测（{verdict}）："
        "请修改代码后再提交",
    },
    "err_run_in_progress": {
        "en": "your previous run is still being judged or waiting for its turn; wait for its "
        "result, then run again",
        "zh": "你上一次的运行仍在评测中或在排队；请等它出结果后再运行",
    },
    "err_runs_busy": {
        "en": "the server is already running {slots} learners' code and the line for it is "
        "full (runs share the judge with submissions); try again in a few seconds",
        "zh": "服务器正在运行 {slots} 位同学的代码，排队也已满（运行与提交共用评测机）；"
        "请几秒后重试",
    },
    "err_store_unavailable": {
        "en": "the server cannot reach its database right now; nothing was changed: try again "
        "in {retry} s",
        "zh": "服务器暂时无法连接数据库，本次请求未做任何更改；请 {retry} 秒后重试",
    },
    # Server errors that are nobody's input mistake, or an admin's: in both languages too.
    "err_admin_only": {"en": "only an administrator can do this", "zh": "只有管理员可以这样做"},
    "err_credentials_missing": {
        "en": "username and password are required",
        "zh": "需要用户名和密码",
    },
    "err_admin_version": {"en": "version must be a string", "zh": "version 必须是字符串"},
    "err_admin_hidden": {
        "en": "hidden must be true or false",
        "zh": "hidden 必须是 true 或 false",
    },
    "err_code_required": {"en": "code is required", "zh": "缺少代码（code）"},
    "err_unknown_language": {
        "en": "language must be one of {langs}",
        "zh": "语言只能是以下之一：{langs}",
    },
    "err_problem_slug": {
        "en": "problem must be a problem slug",
        "zh": "problem 必须是题目的标识（slug）",
    },
    "err_unknown_problem": {"en": "unknown problem {slug}", "zh": "没有题目 {slug}"},
    "err_unknown_problem_hint": {
        "en": "unknown problem {slug}; did you mean {suggestion}?",
        "zh": "没有题目 {slug}；你要找的是不是 {suggestion}？",
    },
    "err_streams_busy": {
        "en": "too many live streams; poll GET /api/submissions/{id} instead",
        "zh": "实时连接过多；请改为轮询 GET /api/submissions/{id}",
    },
    "err_internal": {
        "en": "the server failed on this request; it has been logged",
        "zh": "服务器处理这个请求时出错，错误已记入日志",
    },
    "err_http_413": {
        "en": "the request body is larger than the server accepts",
        "zh": "请求体超过了服务器接受的大小",
    },
    "err_http_404": {"en": "no such page or resource", "zh": "没有这个页面或资源"},
    "err_http_405": {
        "en": "method {method} is not allowed here",
        "zh": "这里不允许使用 {method} 方法",
    },
    "err_http_other": {"en": "{description}", "zh": "无法处理这个请求（HTTP {status}）"},
    "err_runs_unavailable": {
        "en": "the server cannot start runs right now (its judging queue is unreachable); "
        "try again in {retry} s",
        "zh": "服务器暂时无法开始运行（评测队列无法连接）；请 {retry} 秒后重试",
    },
    "err_unknown_run": {
        "en": "no such run of yours (a finished run is kept for {minutes} minutes, and not "
        "across a server restart); run again",
        "zh": "没有这次运行（运行结果只保留 {minutes} 分钟，服务器重启后也会清空）；请重新运行",
    },
    "err_try_input_code": {
        "en": "send your code with the input: a torch-tier problem's code runs on the server",
        "zh": "请把代码和输入一起发送：torch 层题目的代码在服务器上运行",
    },
    "err_try_input_browser": {
        "en": "send the input alone: a browser-tier problem's code runs in your browser, on the "
        "reference's answer",
        "zh": "请只发送输入：浏览器层题目的代码在你的浏览器里运行，并与参考解的答案比较",
    },
    "err_runs_in_browser": {
        "en": "{slug} runs in your browser: press Run on its page (the server runs only "
        "torch-tier problems, which the browser cannot)",
        "zh": "{slug} 在你的浏览器里运行：请在题目页面点击“运行”（服务器只运行浏览器无法运行的 "
        "torch 类题目）",
    },
    "span_minute": {"en": "minute", "zh": "分钟"},
    "span_minutes": {"en": "{n} minutes", "zh": " {n} 分钟"},
    "span_hour": {"en": "hour", "zh": "小时"},
    "span_hours": {"en": "{n} hours", "zh": " {n} 小时"},
    "span_seconds": {"en": "{n} s", "zh": " {n} 秒"},
    # The landing page and the problem list's difficulty, stats and tier legend.
    "home_title": {
        "en": "Practise the KV cache, the way the handbook teaches it",
        "zh": "动手练习 KV Cache，与手册同步",
    },
    "home_intro": {
        "en": "Exercises for the handbook chapter \u201c{chapter}\u201d. Write the code in the "
        "editor and run the public cases in your browser; Submit judges it on the server "
        "against hidden cases. python practice/judge.py run, as the handbook says, does the "
        "same on your machine.",
        "zh": "这是手册“{chapter}”一章的练习。在编辑器里写代码，公开用例直接在浏览器里运行；"
        "提交后由服务器用隐藏用例判题。也可以像手册里说的那样，在本地用 "
        "python practice/judge.py run 判题。",
    },
    "home_start": {"en": "Start here:", "zh": "从这里开始："},
    # The chapter ends with exercises of its own (本章练习题): problem.toml `exercise`.
    "home_exercises": {
        "en": "The chapter's own exercises ({n}):",
        "zh": "本章练习题（{n} 道）：",
    },
    "exercise_badge": {"en": "Chapter exercise {n}", "zh": "本章练习 {n}"},
    "home_sections": {"en": "The chapter, section by section", "zh": "本章各节"},
    "home_practise": {"en": "Practise:", "zh": "练习："},
    "home_capstone": {
        "en": "The chapter's last step puts it all together in an engine of your own:",
        "zh": "本章的最后一步，把这些合成一个你自己的推理引擎：",
    },
    "capstone_stage_1": {
        "en": "static batching: admit a batch when nothing runs, and run it to its end",
        "zh": "静态批处理：没有请求在运行时接纳一批，一直运行到这批全部结束",
    },
    "capstone_stage_2": {
        "en": "continuous batching: finished requests leave and waiting ones join at every step",
        "zh": "连续批处理：每一步都让结束的请求离开、等待的请求加入",
    },
    "capstone_stage_3": {
        "en": "paging under pressure: blocks as requests grow, preemption when they run out",
        "zh": "显存紧张时的分页：请求增长时才分配块，块用完就抢占",
    },
    "capstone_stage_4": {
        "en": "prefix sharing: full prompt blocks computed once and reused",
        "zh": "前缀共享：提示词的完整块只算一次并复用",
    },
    "col_difficulty": {"en": "Difficulty", "zh": "难度"},
    "difficulty_easy": {"en": "easy", "zh": "简单"},
    "difficulty_medium": {"en": "medium", "zh": "中等"},
    "difficulty_hard": {"en": "hard", "zh": "困难"},
    "col_solved_by": {"en": "Solved by", "zh": "通过人数"},
    "col_acceptance": {"en": "Acceptance", "zh": "通过率"},
    "tier_legend": {
        "en": "Tier: browser problems need only the standard library and run in your browser "
        "(Python in Pyodide); torch problems need PyTorch, so Run and Submit go to the server.",
        "zh": "类型：浏览器题只用标准库，直接在你的浏览器里运行（Pyodide 中的 Python）；"
        "torch 题需要 PyTorch，运行和提交都在服务器上进行。",
    },
    "tier_tip_browser": {
        "en": "runs in your browser (standard library only)",
        "zh": "在你的浏览器里运行（只用标准库）",
    },
    "tier_tip_torch": {
        "en": "needs PyTorch: runs on the server",
        "zh": "需要 PyTorch：在服务器上运行",
    },
    "handbook_section": {"en": "Handbook section:", "zh": "手册章节："},
    "hints_title": {"en": "Hints", "zh": "提示"},
    "hint_n": {"en": "Hint {n}", "zh": "提示 {n}"},
    "hint_next": {"en": "Show hint {n} of {total}", "zh": "看第 {n} 条提示（共 {total} 条）"},
    "hints_intro": {
        "en": "Stuck? Open one hint at a time; each says a little more than the last.",
        "zh": "卡住了？一次只看一条提示，每条比上一条多说一点。",
    },
    "editorial_title": {"en": "Editorial", "zh": "题解"},
    "editorial_locked": {
        "en": "The editorial (the idea behind the reference solution) opens once you have an "
        "accepted submission.",
        "zh": "提交通过之后，这里会出现题解（参考解法的思路）。",
    },
    "profile_rank": {"en": "Rank on the leaderboard", "zh": "总榜名次"},
    "profile_unranked": {"en": "not on the board yet", "zh": "还未上榜"},
    "profile_solved": {"en": "Solved", "zh": "已通过"},
    "profile_best_speed": {"en": "their fastest accepted run", "zh": "其最快的一次通过"},
    "profile_submissions": {"en": "Submissions", "zh": "提交次数"},
    "profile_all_submissions": {"en": "all their submissions", "zh": "查看全部提交"},
    "profile_results": {"en": "Results per problem", "zh": "各题成绩"},
    "profile_none": {"en": "No submissions yet.", "zh": "还没有提交。"},
    "col_attempts": {"en": "Attempts", "zh": "提交数"},
    "try_input_cli": {
        "en": "Try your own input in the “Try your input” tab beside the results, or "
        "offline: write arguments shaped like a public case's as JSON in a file, and run "
        "your code and the reference on them side by side with",
        "zh": "试试你自己的输入：在结果旁的“自定义输入”标签页里运行，或者离线运行："
        "把形如公开用例参数的 JSON 写进一个文件，用下面的命令让你的代码和参考解并排跑一遍：",
    },
    "problem_board_link": {"en": "Leaderboard for this problem", "zh": "本题排行榜"},
    "per_problem_boards": {"en": "Per-problem boards", "zh": "各题排行榜"},
    "err_unknown_user": {"en": "no user named {name}", "zh": "没有名为 {name} 的用户"},
    "err_no_editorial": {"en": "{slug} has no editorial", "zh": "{slug} 没有题解"},
    "err_not_accepted": {
        "en": "the editorial opens after an accepted submission to this problem",
        "zh": "这道题的提交通过之后才能看题解",
    },
    # The handbook chapter the problems practise (web/content/handbook.py): its title, and each
    # section's heading (the chapter's own, translated) and one line on what it teaches.
    "chapter_title": {
        "en": "The KV cache and the two phases of inference",
        "zh": "KV Cache 与两阶段推理",
    },
    "section_self_test_title": {"en": "Self-test", "zh": "自测"},
    "section_self_test_gist": {
        "en": "Five questions: if you can answer them all, you can skip the chapter.",
        "zh": "五个问题：都答得上来，就可以跳过这一章。",
    },
    "section_why_cache_title": {"en": "Why K and V can be cached", "zh": "为什么 K、V 可以缓存"},
    "section_why_cache_gist": {
        "en": "Under causal attention an old token's K and V never change and its Q is used "
        "once, so generating n tokens costs about n tokens of work instead of n²/2.",
        "zh": "因果注意力下旧 token 的 K、V 不再变化，Q 只用一次；"
        "生成 n 个 token 的工作量从约 n²/2 降到约 n。",
    },
    "section_verify_title": {
        "en": "Checking: step by step with a cache equals a full recompute",
        "zh": "验证：带缓存的逐步计算等于完整重算",
    },
    "section_verify_gist": {
        "en": "Prefill, then decode one token at a time: the logits must match one full "
        "forward pass. The usual test of an inference implementation.",
        "zh": "先 prefill 再逐个 decode，得到的 logits 应与一次性前向一致："
        "这是检验推理实现最常用的办法。",
    },
    "section_prefill_decode_title": {"en": "Prefill and decode", "zh": "prefill 与 decode"},
    "section_prefill_decode_gist": {
        "en": "Prefill shares one read of the weights among T tokens and is compute-bound; "
        "decode has one token per step and is bound by memory bandwidth.",
        "zh": "prefill 一次读权重服务 T 个 token，受算力限制；"
        "decode 每步一个 token，受显存带宽限制。",
    },
    "section_batching_title": {
        "en": "Batching: many requests share one read of the weights",
        "zh": "批处理：让多个请求分摊权重读取",
    },
    "section_batching_gist": {
        "en": "Decoding 8 requests together made a step only about 60% slower, about 5x the "
        "throughput; but each request's KV is its own, and memory runs out first.",
        "zh": "8 个请求一起 decode，每步只慢约 60%，吞吐约为 5 倍；"
        "但每个请求的 KV 无法分摊，显存先耗尽。",
    },
    "section_memory_title": {"en": "Managing KV-cache memory", "zh": "KV Cache 的显存管理"},
    "section_memory_gist": {
        "en": "Reserving the maximum length fragments memory; PagedAttention hands out and "
        "shares fixed-size blocks, and prefix caching, preemption, offloading and "
        "quantization build on it.",
        "zh": "按最大长度预留会造成碎片；"
        "PagedAttention 按块分配、按块共享，另有前缀缓存、抢占、卸载和量化。",
    },
}


def pick_language() -> str:
    """The cookie wins; then the best Accept-Language match; English otherwise."""
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGS:
        return chosen
    return request.accept_languages.best_match(LANGS, default="en") or "en"


def current_language() -> str:
    """The language picked for this request; English outside a request."""
    if has_request_context():
        lang = g.get("lang")
        if lang in LANGS:
            return str(lang)
    return "en"


def say(key: str, **values: object) -> str:
    """A learner-facing message in the request's language, its fields filled in."""
    return translate(key, current_language()).format(**values)


def translate(key: str, lang: str) -> str:
    entry = MESSAGES.get(key)
    if entry is None:
        raise KeyError(f"no UI message {key!r} in web/i18n.py")
    return entry[lang]
