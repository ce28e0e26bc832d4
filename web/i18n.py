"""The UI's message catalog in English and Chinese; the language comes from the `lang`
cookie, else the browser's Accept-Language, else English."""

from __future__ import annotations

from flask import request

LANGS = ("en", "zh")
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
    "col_tokens_per_s": {"en": "Best tokens/s", "zh": "最佳 tokens/s"},
    "col_spread": {"en": "Spread", "zh": "波动"},
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
    "memory": {"en": "memory", "zh": "内存"},
    "username": {"en": "Username", "zh": "用户名"},
    "password": {"en": "Password", "zh": "密码"},
    "login_title": {"en": "Log in", "zh": "登录"},
    "register_title": {"en": "Create an account", "zh": "创建账号"},
    "no_account": {"en": "No account yet?", "zh": "还没有账号？"},
    "speed_board": {"en": "Speed board", "zh": "速度榜"},
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
}


def pick_language() -> str:
    """The cookie wins; then the best Accept-Language match; English otherwise."""
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGS:
        return chosen
    return request.accept_languages.best_match(LANGS, default="en") or "en"


def translate(key: str, lang: str) -> str:
    entry = MESSAGES.get(key)
    if entry is None:
        raise KeyError(f"no UI message {key!r} in web/i18n.py")
    return entry[lang]
