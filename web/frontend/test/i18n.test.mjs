// UI strings: interpolation, nested verdict names, and a fallback for unknown keys.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aroundSlot, lang, t } from "../src/i18n.js";

test("outside a page the language is English", () => {
  assert.equal(lang, "en");
});

test("parameters are filled in", () => {
  assert.equal(t("passed", { passed: 3, total: 5 }), "3 / 5 passed");
});

test("verdict names are looked up by code", () => {
  assert.equal(t("verdict.TLE"), "Time limit exceeded");
});

test("an unknown key shows itself rather than nothing", () => {
  assert.equal(t("no.such.key"), "no.such.key");
});

test("a sentence cut around its time slot keeps both parts and fills the others", () => {
  const [before, after] = aroundSlot("draftLoaded", "time");
  assert.equal(before, "Loaded your draft from ");
  assert.equal(after, ", saved on another device or tab.");
});
