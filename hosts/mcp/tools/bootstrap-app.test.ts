import test from "ava";
import { loadConfig } from "../../../kernel/config.js";
import { readAuthEnvironment } from "../../../plugins/auth/auth-environment.js";
import { filesOf } from "../test-support/docs-server-checks.js";
import { renderFiles } from "../tool-result.js";
import { bootstrapApp, JWT_PRODUCTION_VARIABLES } from "./bootstrap-app.js";

const secret = (letter: string) => letter.repeat(48);
const PRODUCTION = { NODE_ENV: "production", TOKEN_SECRET: secret("a"), REFRESH_TOKEN_SECRET: secret("b"), SESSION_SECRET: secret("c"), TOKEN_ISSUER: "book-club" };

test("the variables .env.example and the auth prompt name are exactly what JWT auth needs in production", (t) => {
  t.notThrows(() => readAuthEnvironment(loadConfig(PRODUCTION)), "these four are enough");
  for (const name of JWT_PRODUCTION_VARIABLES) {
    const { [name]: _left, ...rest } = PRODUCTION;
    const error = t.throws(() => readAuthEnvironment(loadConfig(rest)), undefined, `${name} is required`);
    t.regex(error!.message, new RegExp(`${name}: required but not set`));
  }
  const outcome = bootstrapApp({ appName: "book-club", appDisplayName: "Book Club" });
  const envExample = "text" in outcome ? filesOf(outcome.text).get(".env.example")! : "";
  t.deepEqual(envExample.match(/^# [A-Z_]+(?==)/gm), ["# NODE_ENV", "# DB_URI", ...JWT_PRODUCTION_VARIABLES.map((name) => `# ${name}`)]);
});

test("a generated file's fence is longer than any backtick run inside it", (t) => {
  const content = "# Title\n\n````md\n```sh\nnpm start\n```\n````\n\nInline `code`.\n";
  const text = renderFiles([{ path: "README.md", language: "md", content }, { path: "a.ts", language: "ts", content: "export const a = 1;\n" }]);
  t.true(text.startsWith("### README.md\n\n`````md\n"));
  t.deepEqual([...filesOf(text)], [["README.md", content], ["a.ts", "export const a = 1;\n"]]);
});
