import test from "ava";
import { consoleColorsEnabled } from "./console-colors.js";

test("a terminal gets colours; a pipe or file does not", (t) => {
  t.true(consoleColorsEnabled({ env: {}, isTTY: true }));
  t.false(consoleColorsEnabled({ env: {}, isTTY: false }));
  t.false(consoleColorsEnabled({ env: {}, isTTY: undefined }), "a stream that is not a TTY has no isTTY at all");
  t.false(consoleColorsEnabled({ env: { TERM: "dumb" }, isTTY: true }));
});

test("NO_COLOR and NODE_DISABLE_COLORS turn colours off, even on a terminal", (t) => {
  t.false(consoleColorsEnabled({ env: { NO_COLOR: "1" }, isTTY: true }));
  t.false(consoleColorsEnabled({ env: { NODE_DISABLE_COLORS: "1" }, isTTY: true }));
  t.true(consoleColorsEnabled({ env: { NO_COLOR: "" }, isTTY: true }), "an empty NO_COLOR counts as unset (no-color.org)");
});

test("FORCE_COLOR forces colours into a pipe and wins over NO_COLOR, unless it says 0 or false", (t) => {
  t.true(consoleColorsEnabled({ env: { FORCE_COLOR: "1" }, isTTY: false }));
  t.true(consoleColorsEnabled({ env: { FORCE_COLOR: "3", NO_COLOR: "1" }, isTTY: false }));
  t.false(consoleColorsEnabled({ env: { FORCE_COLOR: "0" }, isTTY: true }));
  t.false(consoleColorsEnabled({ env: { FORCE_COLOR: "false" }, isTTY: true }));
});

test("disableConsoleColors in code wins over the environment and the stream", (t) => {
  t.false(consoleColorsEnabled({ disableConsoleColors: true, env: { FORCE_COLOR: "1" }, isTTY: true }));
  t.true(consoleColorsEnabled({ disableConsoleColors: false, env: { NO_COLOR: "1" }, isTTY: false }));
});
