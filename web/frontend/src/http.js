// JSON requests to the platform's API with the CSRF token the server put in the page.
export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : null;
}

export async function requestJSON(url, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = csrfToken();
  if (token && method !== "GET") headers["X-CSRF-Token"] = token;
  const response = await fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const message = (payload && (payload.message || payload.error)) || `HTTP ${response.status}`;
    throw new HttpError(response.status, typeof message === "string" ? message : JSON.stringify(message));
  }
  return payload;
}

// A file's text, unparsed (the problem bundle goes to Python as the server wrote it).
export async function requestText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new HttpError(response.status, `HTTP ${response.status}`);
  return response.text();
}
