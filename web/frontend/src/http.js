// JSON requests to the platform's API with the CSRF token the server put in the page.
export class HttpError extends Error {
  constructor(status, message, code = null) {
    super(message);
    this.status = status;
    this.code = code; // the API's stable error code ("duplicate_submission"), when it sent one
  }
}

// The API's one error shape, {"error": {"status", "code", "message"}}; anything else
// (a proxy's page, an empty body) is said by its HTTP status.
export function errorOf(status, payload) {
  const error = payload && typeof payload.error === "object" && payload.error !== null ? payload.error : null;
  if (error && typeof error.message === "string") return new HttpError(status, error.message, error.code || null);
  const message = (payload && (payload.message || payload.error)) || `HTTP ${status}`;
  return new HttpError(status, typeof message === "string" ? message : JSON.stringify(message));
}

// A path the API answered with (a run's or a submission's `url`), said against the address
// the request went to: the platform's own when a handbook page on another origin asked.
// A relative `base` leaves the path as it is (the page's origin is the API's).
export function against(path, base) {
  try {
    return new URL(path, base).href;
  } catch {
    return path;
  }
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : null;
}

// `bearer`: an API token sent instead of any cookie (a handbook page on another origin:
// the platform allows it there by CORS, without credentials, so no CSRF token is needed).
export async function requestJSON(url, { method = "GET", body, bearer = null } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = csrfToken();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  else if (token && method !== "GET") headers["X-CSRF-Token"] = token;
  const response = await fetch(url, {
    method,
    headers,
    credentials: bearer ? "omit" : "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (!response.ok) throw errorOf(response.status, payload);
  return payload;
}

// A file's text, unparsed (the problem bundle goes to Python as the server wrote it).
export async function requestText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new HttpError(response.status, `HTTP ${response.status}`);
  return response.text();
}
