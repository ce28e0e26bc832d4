// The browser Run's time limits, derived from the problem's own (problem.toml [limits]).
// Python in Pyodide (WebAssembly) runs the same code about 1.5-3x slower than CPython on
// the server, and the page learns that a case started through a worker message, so the
// browser allows BROWSER_SLOWDOWN times the problem's limit, never less than a floor that
// keeps a tiny limit from tripping on message latency. The server's verdict stays the one
// that counts: a case that passes here at 2.5x its limit is still TLE when submitted.
export const BROWSER_SLOWDOWN = 3;
const MIN_CASE_S = 2;
const MIN_TOTAL_S = 5;
// Used only for a bundle without limits (the spec requires them).
const DEFAULT_CASE_S = 2;
const DEFAULT_TOTAL_S = 10;

function positive(value, fallback) {
  const number = Number(value);
  return Number.isFinite(number) && number > 0 ? number : fallback;
}

// {caseS, totalS}: the problem's limits; {caseMs, totalMs}: what the browser enforces.
export function timeLimits(bundle) {
  const limits = (bundle && bundle.problem && bundle.problem.limits) || {};
  const caseS = positive(limits.time_per_case_s, DEFAULT_CASE_S);
  const totalS = positive(limits.total_time_s, DEFAULT_TOTAL_S);
  return {
    caseS,
    totalS,
    caseMs: Math.max(caseS * BROWSER_SLOWDOWN, MIN_CASE_S) * 1000,
    totalMs: Math.max(totalS * BROWSER_SLOWDOWN, MIN_TOTAL_S) * 1000,
  };
}
