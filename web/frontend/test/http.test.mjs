// How an API error reaches the page: its message and its stable code.
import assert from "node:assert/strict";
import { test } from "node:test";
import { errorOf } from "../src/http.js";

test("the API's error shape gives the message and the code, not the object as JSON", () => {
  const payload = { error: { status: 409, code: "duplicate_submission", message: "same code as #3" } };
  const error = errorOf(409, payload);
  assert.equal(error.message, "same code as #3");
  assert.equal(error.code, "duplicate_submission");
  assert.equal(error.status, 409);
});

test("a body without the error shape is said by its status", () => {
  assert.equal(errorOf(502, null).message, "HTTP 502");
  assert.equal(errorOf(400, { message: "plain" }).message, "plain");
  assert.equal(errorOf(400, { message: "plain" }).code, null);
});
