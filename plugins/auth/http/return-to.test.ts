import test from "ava";
import { AuthErrors } from "../errors.js";
import { allowedReturnTo, normalizeOrigins } from "./return-to.js";

const origins = normalizeOrigins(["https://app.example.com/", "http://localhost:5173"]);

test("allowlisted origins pass with their path and query", (t) => {
  t.deepEqual(origins, ["https://app.example.com", "http://localhost:5173"]);
  t.is(allowedReturnTo("https://app.example.com/after?x=1", origins), "https://app.example.com/after?x=1");
  t.is(allowedReturnTo("http://localhost:5173/", origins), "http://localhost:5173/");
});

test("open-redirect attempts are refused", (t) => {
  const attempts = [
    "https://evil.example/",
    "//evil.example/",
    "/relative/path",
    "https://app.example.com.evil.example/",
    "https://app.example.com@evil.example/",
    "https://user:pass@app.example.com/",
    "https:\\\\evil.example",
    "https://app.example.com\\@evil.example",
    "javascript:alert(1)//https://app.example.com",
    "data:text/html,hi",
    "https://app.example.com:8443/",
    "http://app.example.com/",
    "https://app.example.com/\n",
    " https://app.example.com/",
    "",
    "x".repeat(3000),
  ];
  for (const attempt of attempts) {
    const error = t.throws(() => allowedReturnTo(attempt, origins), undefined, attempt) as { code?: string };
    t.is(error.code, AuthErrors.RETURN_TO_NOT_ALLOWED.code);
  }
  t.throws(() => allowedReturnTo(["https://app.example.com/"], origins));
});

test("misconfigured origins fail at start", (t) => {
  for (const bad of ["app.example.com", "https://app.example.com/path", "ftp://app.example.com", "https://u@app.example.com"]) {
    t.throws(() => normalizeOrigins([bad]), { code: AuthErrors.INVALID_RETURN_ORIGIN.code }, bad);
  }
});
