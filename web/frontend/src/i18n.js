// UI strings in Chinese and English. The language is chosen in this order: the `lang`
// cookie (set by the server's /lang/<code> switch, which renders its templates in the
// same language), the page's <html lang>, then the browser's preferred languages.

export const LANGUAGES = ["zh", "en"];
export const COOKIE = "lang";

const STRINGS = {
  en: {
    run: "Run",
    stop: "Stop",
    submit: "Submit",
    reset: "Reset",
    resetConfirm: "Replace your code with the starter code?",
    runHint: "Ctrl/⌘ + Enter",
    runTitle: "Run the public cases here (Ctrl/⌘ + Enter, from anywhere on the page)",
    submitTitle: "Submit to be judged on the server (Ctrl/⌘ + Shift + Enter)",
    code: "Code",
    loadingDownload: "Downloading Python",
    loadingStart: "Starting Python",
    loadingJudge: "Loading the judge",
    restarting: "Restarting Python after the stopped run…",
    ready: "Python {python} ready",
    running: "Running public cases…",
    failedBoot: "Python could not start: {message}",
    results: "Results",
    submissions: "Submissions",
    statement: "Statement",
    noRunYet: "Press Run to check your code on the public cases, right here in your browser.",
    passed: "{passed} / {total} passed",
    stopped: "Stopped. The run was ended before it finished.",
    timeoutTotal:
      "Time limit exceeded: the run took longer than {seconds} s in all and was ended (the problem allows {limit} s; Python in the browser gets {factor}×).",
    timeoutOnCase: "Time limit exceeded on case {name}: it was stopped, and the cases after it did not run.",
    timeoutCase: "ran past {seconds} s (the problem allows {limit} s per case; Python in the browser gets {factor}×)",
    runFailed: "The run failed: {message}",
    compileError: "Your code does not compile (line {line})",
    compileErrorAt: "Your code does not compile, at",
    compileErrorNoLine: "Your code does not compile",
    loadErrorAt: "Your code raised an error while loading, at",
    loadErrorLine: "Your code raised an error while loading (line {line})",
    loadErrorNoLine: "Your code raised an error while loading",
    got: "Got",
    expected: "Expected",
    traceback: "Traceback",
    input: "Input",
    inputOmitted: "The arguments are {chars} characters of JSON, too long to show here.",
    inputSteps: "Calls, steps 0-{step} (step {step} is the first that differs)",
    inputStepsRaised: "Calls, steps 0-{step} (step {step} raised)",
    traceCut: "The trace “{key}” is shown up to step {step} of its {length} operations.",
    stateBefore: "State before step {step}, as step {previous} ({op}) left it (got and expected agree)",
    stateBeforeRaised: "State before step {step}, as the reference's step {previous} ({op}) left it",
    subjectState: "Step {step} acts on {subject}: its state after step {previous} ({op}), the last step on it",
    wholeValue: "The whole returned value, the first difference marked",
    wholeValueAt: "The whole of {where}, the first difference marked",
    printed: "Printed",
    printedErr: "Printed to stderr",
    allOutput: "All output, in order",
    copyTest: "Copy as a test",
    copied: "Copied",
    copyByHand: "Selected: copy it with Ctrl/⌘ + C",
    testTitle: "Test (Python): run it beside your solution",
    line: "line {line}",
    stdout: "Output",
    stderr: "Errors",
    outputWithheld: "What your code printed during the hidden cases is not shown: it could reveal their inputs.",
    ms: "{ms} ms",
    submitting: "Submitting…",
    queued: "Queued",
    judging: "Judging…",
    judgingCases: "Judging… {done} of {total} cases done",
    judgingPhase: "Judging… {phase} ({done} of {total} cases run)",
    judgingStage: "Judging… {phase}",
    submitFailed: "Submission failed: {message}",
    loginToSubmit: "Log in to submit",
    noSubmissions: "No submissions yet.",
    draftLoaded: "Loaded your draft from {time}, saved on another device or tab.",
    undo: "Undo",
    editorialOpened: "Accepted: the editorial is open now, under the statement.",
    loadFailed: "Could not load: {message}",
    showCode: "Code",
    hiddenCase: "hidden",
    serverOnly: "This problem needs PyTorch, so it runs on the server only: press Submit to judge it.",
    serverRunIntro:
      "This problem needs PyTorch, so Run judges the public cases on the server. A run is not a submission: it is not stored and never counts.",
    serverRunLogin: "This problem needs PyTorch, so it runs on the server: log in to Run or Submit it.",
    serverRunning: "Running the public cases on the server… (a PyTorch problem takes 10-30 s)",
    publicOnly: "Run checks the public cases only; Submit is judged on hidden cases on the server.",
    try: "Try your input",
    tryIntro:
      "Edit a public case's arguments as JSON and run them: the reference answers on the server, your code beside it. Nothing here is a submission: it is not stored and never counts.",
    tryLogin: "Log in to try your own input (the reference runs on the server).",
    tryStartFrom: "Start from",
    tryArgs: "Arguments (JSON)",
    tryRun: "Run with this input",
    tryEmpty: "Write the arguments as JSON first.",
    tryNotJSON: "This is not JSON: {message}",
    tryRunningReference: "Running the reference on your input on the server…",
    tryRunningBoth: "Running the reference and your code on your input on the server… (a PyTorch problem takes 10-30 s)",
    tryRunningYours: "Running your code on it here…",
    tryReference: "The reference's answer",
    tryYours: "Your code",
    trySame: "Your code's answer is the same as the reference's.",
    tryNoCase: "the reference's answer is too large to compare in the page",
    tryPythonBusy: "Python is still loading or running: try again in a moment",
    tryTimeout: "Your code ran past the time limit on this input and was stopped.",
    noRunResult: "no result 6 minutes after the server started your run; try again",
    runWaiting: "Every run slot on the server is taken: yours is number {place} in line and starts when a slot frees…",
    embed: {
      statement: "The exercise",
      offline: "This exercise runs PyTorch, which a browser cannot: judge it on your machine with",
      copyCommand: "Copy the command",
      connectIntro: "Submit to {platform} for a verdict on its hidden cases and a place on its leaderboard:",
      username: "User name",
      password: "Password",
      connect: "Log in",
      connected: "Submitting as {user} on {platform}",
      disconnect: "Log out",
      leaderboard: "Leaderboard",
      loginFailed: "Could not log in: {message}",
      serverRunConnect: "Log in to the platform below to run this exercise on its server.",
      hints: "Hints",
      hint: "Hint {n}",
      nextHint: "Show hint {n} of {total}",
      quizRun: "Check my answers",
      quizIntro: "Answers are checked here at the points the questions make public; Submit to the platform marks them in full.",
      quizChooseOne: "Choose one.",
      quizChooseAll: "Choose all that apply.",
      quizExpression: "An expression in {names}.",
      quizNumber: "A number.",
      lastResult: "Your last result on this page, from {when}:",
      waiting: "Waiting for another exercise on this page to finish its run…",
      quizNotNumber: "Write a number here, such as 42, 1,500 or 1.5e3.",
      quizBadExpression: "This is not an expression the judge can read ({message}).",
      quizAtSubmit: "Marked when you submit to the platform: its answer is not in this page.",
      quizPlatformOnly: "Only the platform can mark this one (its answer is not in this page), and this site names no platform.",
      quizSummary: "{right} right, {wrong} to look at again, {later} marked only when you submit to the platform",
      quizSummaryOffline: "{right} right, {wrong} to look at again; {later} (choices and numbers) can only be marked by the platform, which this site does not name",
    },
    verdict: {
      AC: "Accepted",
      WA: "Wrong answer",
      TLE: "Time limit exceeded",
      MLE: "Memory limit exceeded",
      OLE: "Output limit exceeded",
      RE: "Runtime error",
      CE: "Compile error",
      IE: "Internal error",
    },
  },
  zh: {
    run: "运行",
    stop: "停止",
    submit: "提交",
    reset: "重置",
    resetConfirm: "用初始代码替换你的代码？",
    runHint: "Ctrl/⌘ + Enter",
    runTitle: "在浏览器里运行公开用例（Ctrl/⌘ + Enter，页面任意位置都可以）",
    submitTitle: "提交到服务器评测（Ctrl/⌘ + Shift + Enter）",
    code: "代码",
    loadingDownload: "正在下载 Python",
    loadingStart: "正在启动 Python",
    loadingJudge: "正在加载评测器",
    restarting: "运行已中止，正在重启 Python…",
    ready: "Python {python} 已就绪",
    running: "正在运行公开用例…",
    failedBoot: "Python 无法启动：{message}",
    results: "运行结果",
    submissions: "提交记录",
    statement: "题目描述",
    noRunYet: "点击“运行”，在浏览器中用公开用例检查你的代码。",
    passed: "通过 {passed} / {total}",
    stopped: "已停止：运行在结束前被中止。",
    timeoutTotal: "超出时间限制：整次运行超过 {seconds} 秒，已被中止（题目限时 {limit} 秒，浏览器里的 Python 放宽到 {factor} 倍）。",
    timeoutOnCase: "用例 {name} 超出时间限制：已被中止，之后的用例没有运行。",
    timeoutCase: "运行超过 {seconds} 秒（题目每个用例限时 {limit} 秒，浏览器里的 Python 放宽到 {factor} 倍）",
    runFailed: "运行失败：{message}",
    compileError: "代码无法编译（第 {line} 行）",
    compileErrorAt: "代码无法编译，位置：",
    compileErrorNoLine: "代码无法编译",
    loadErrorAt: "代码在加载时出错，位置：",
    loadErrorLine: "代码在加载时出错（第 {line} 行）",
    loadErrorNoLine: "代码在加载时出错",
    got: "实际输出",
    expected: "期望输出",
    traceback: "错误栈",
    input: "输入",
    inputOmitted: "参数的 JSON 有 {chars} 个字符，太长，这里不显示。",
    inputSteps: "调用，第 0-{step} 步（第 {step} 步是第一个不同的步骤）",
    inputStepsRaised: "调用，第 0-{step} 步（第 {step} 步抛出了异常）",
    traceCut: "轨迹“{key}”只显示到第 {step} 步，共 {length} 个操作。",
    stateBefore: "第 {step} 步之前的状态，即第 {previous} 步（{op}）之后（实际与期望一致）",
    stateBeforeRaised: "第 {step} 步之前的状态，即参考解第 {previous} 步（{op}）之后",
    subjectState: "第 {step} 步作用于 {subject}：它在第 {previous} 步（{op}）之后的状态，那是作用于它的上一步",
    wholeValue: "完整的返回值，第一处不同已标出",
    wholeValueAt: "{where} 的完整值，第一处不同已标出",
    printed: "打印输出",
    printedErr: "打印到 stderr 的输出",
    allOutput: "全部输出（按顺序）",
    copyTest: "复制为测试",
    copied: "已复制",
    copyByHand: "已选中：请用 Ctrl/⌘ + C 复制",
    testTitle: "测试（Python）：放在你的解答旁边运行",
    line: "第 {line} 行",
    stdout: "输出",
    stderr: "错误输出",
    outputWithheld: "隐藏用例运行期间的打印输出不予显示：它可能泄露这些用例的输入。",
    ms: "{ms} 毫秒",
    submitting: "正在提交…",
    queued: "排队中",
    judging: "评测中…",
    judgingCases: "评测中…已完成 {done}/{total} 个用例",
    judgingPhase: "评测中…{phase}（已运行 {done}/{total} 个用例）",
    judgingStage: "评测中…{phase}",
    submitFailed: "提交失败：{message}",
    loginToSubmit: "登录后提交",
    noSubmissions: "还没有提交记录。",
    draftLoaded: "已载入你在 {time} 保存的草稿（来自另一台设备或另一个标签页）。",
    undo: "撤销",
    editorialOpened: "答案正确：题解已经打开，就在题面下方。",
    loadFailed: "加载失败：{message}",
    showCode: "代码",
    hiddenCase: "隐藏用例",
    serverOnly: "这道题需要 PyTorch，只能在服务器上运行：点击“提交”进行评测。",
    serverRunIntro: "这道题需要 PyTorch，“运行”会在服务器上评测公开用例。运行不是提交：不保存，也不计入成绩。",
    serverRunLogin: "这道题需要 PyTorch，只能在服务器上运行：登录后即可运行或提交。",
    serverRunning: "正在服务器上运行公开用例…（PyTorch 题目需要 10-30 秒）",
    publicOnly: "“运行”只检查公开用例；“提交”由服务器在隐藏用例上评测。",
    try: "自定义输入",
    tryIntro: "把某个公开用例的参数改成你想试的 JSON 再运行：参考解在服务器上给出答案，你的代码的答案列在旁边。这里不是提交：不保存，也不计入成绩。",
    tryLogin: "登录后才能试自己的输入（参考解在服务器上运行）。",
    tryStartFrom: "从这个公开用例开始",
    tryArgs: "参数（JSON）",
    tryRun: "用这组输入运行",
    tryEmpty: "请先把参数写成 JSON。",
    tryNotJSON: "这不是 JSON：{message}",
    tryRunningReference: "正在服务器上用你的输入运行参考解…",
    tryRunningBoth: "正在服务器上用你的输入运行参考解和你的代码…（PyTorch 题目需要 10-30 秒）",
    tryRunningYours: "正在这里用这组输入运行你的代码…",
    tryReference: "参考解的答案",
    tryYours: "你的代码",
    trySame: "你的代码的答案与参考解相同。",
    tryNoCase: "参考解的答案太大，无法在页面里比较",
    tryPythonBusy: "Python 还在加载或正在运行：请稍后再试",
    tryTimeout: "你的代码在这组输入上超出了时间限制，已被停止。",
    noRunResult: "服务器开始运行后 6 分钟仍没有结果，请再试一次",
    runWaiting: "服务器上的运行名额已满：你排在第 {place} 位，有空位时自动开始…",
    embed: {
      statement: "练习题",
      offline: "这道题要运行 PyTorch，浏览器里跑不了：请在本地判题：",
      copyCommand: "复制命令",
      connectIntro: "提交到 {platform}，在隐藏用例上得到判定结果，并进入排行榜：",
      username: "用户名",
      password: "密码",
      connect: "登录",
      connected: "以 {user} 的身份提交到 {platform}",
      disconnect: "退出登录",
      leaderboard: "排行榜",
      loginFailed: "登录失败：{message}",
      serverRunConnect: "请先在下方登录平台，这道题在平台的服务器上运行。",
      hints: "提示",
      hint: "提示 {n}",
      nextHint: "看第 {n} 条提示（共 {total} 条）",
      quizRun: "检查我的答案",
      quizIntro: "这里只在题目公开的取值上检查答案；提交到平台才会完整判分。",
      quizChooseOne: "单选。",
      quizChooseAll: "多选：选出所有正确的选项。",
      quizExpression: "用 {names} 写出表达式。",
      quizNumber: "填一个数。",
      lastResult: "你在本页上次运行的结果（{when}）：",
      waiting: "正在等待本页另一道题运行结束……",
      quizNotNumber: "这里要填一个数，例如 42、1,500 或 1.5e3。",
      quizBadExpression: "评测机读不懂这个表达式（{message}）。",
      quizAtSubmit: "提交到平台后判分：这一题的答案不在本页里。",
      quizPlatformOnly: "这一题只有平台能判（答案不在本页里），而本站没有配置平台。",
      quizSummary: "{right} 题正确，{wrong} 题需要再看看，{later} 题要提交到平台后才判",
      quizSummaryOffline: "{right} 题正确，{wrong} 题需要再看看；{later} 题（选择题和数值题）只有平台能判，而本站没有配置平台",
    },
    verdict: {
      AC: "答案正确",
      WA: "答案错误",
      TLE: "超出时间限制",
      MLE: "超出内存限制",
      OLE: "输出超限",
      RE: "运行错误",
      CE: "编译错误",
      IE: "评测机错误",
    },
  },
};

function readCookie(name) {
  const prefix = `${name}=`;
  for (const part of document.cookie.split(";")) {
    const item = part.trim();
    if (item.startsWith(prefix)) return decodeURIComponent(item.slice(prefix.length));
  }
  return null;
}

function normalise(tag) {
  if (!tag) return null;
  const base = tag.toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.includes(base) ? base : null;
}

export function detectLanguage() {
  if (typeof document === "undefined") return "en"; // outside a page (unit tests)
  // A handbook page's embeds carry the site's configured language: it wins over a cookie
  // another site on the same host (the platform, another port) may have set.
  const embed = normalise(document.querySelector(".practice-embed[data-lang]")?.dataset.lang);
  if (embed) return embed;
  const fromCookie = normalise(readCookie(COOKIE));
  if (fromCookie) return fromCookie;
  const fromPage = normalise(document.documentElement.lang);
  if (fromPage) return fromPage;
  for (const tag of navigator.languages || [navigator.language]) {
    const found = normalise(tag);
    if (found) return found;
  }
  return "en";
}

export const lang = detectLanguage();

// A sentence the server or a bundle gives in both languages ({en, zh}), in the page's;
// a plain string as it is.
export function bilingual(sentence) {
  if (!sentence || typeof sentence !== "object") return String(sentence ?? "");
  return sentence[lang] || sentence.en || sentence.zh || "";
}

// A sentence cut where `{slot}` is, its other placeholders filled: the page puts an element
// (a <time>) between the two parts. t() alone would have emptied the slot first.
export function aroundSlot(key, slot, params = {}) {
  const mark = "\u{E000}"; // a private-use character: in no translation
  const [before, after = ""] = t(key, { ...params, [slot]: mark }).split(mark);
  return [before, after];
}

// t("passed", {passed: 1, total: 2}) -> "1 / 2 passed"; dotted keys reach nested tables.
export function t(key, params = {}) {
  const lookup = (table) => key.split(".").reduce((node, part) => node && node[part], table);
  const text = lookup(STRINGS[lang]) ?? lookup(STRINGS.en) ?? key;
  return String(text).replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}
