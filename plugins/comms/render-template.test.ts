import test from "ava";
import { renderTemplate } from "../../plugins/comms/index.js";

test("top-level placeholders are replaced in subject, text and html", (t) => {
  const out = renderTemplate({ data: { name: "Ada", count: 3 }, template: { subject: "Hi {{name}}", text: "{{ name }} has {{count}}", html: "<b>{{name}}</b>" } });
  t.deepEqual(out, { subject: "Hi Ada", text: "Ada has 3", html: "<b>Ada</b>" });
});

test("missing, inherited and non-scalar properties render empty", (t) => {
  const data = Object.assign(Object.create({ inherited: "no" }) as Record<string, unknown>, { obj: { a: 1 }, fn: () => "x" });
  const out = renderTemplate({ data, template: { text: "[{{missing}}][{{inherited}}][{{constructor}}][{{__proto__}}][{{toString}}][{{obj}}][{{fn}}]" } });
  t.is(out.text, "[][][][][][][]");
});

test("placeholders are names, never expressions or paths", (t) => {
  const data = { a: { b: "deep" }, name: "Ada" };
  const out = renderTemplate({ data, template: { text: "{{a.b}} {{name.constructor}} {{process.exit()}} {{ name }}" } });
  t.is(out.text, "{{a.b}} {{name.constructor}} {{process.exit()}} Ada");
});

test("values are escaped in html but not in text", (t) => {
  const out = renderTemplate({ data: { name: "<script>x</script>" }, template: { text: "{{name}}", html: "{{name}}" } });
  t.is(out.text, "<script>x</script>");
  t.is(out.html, "&lt;script&gt;x&lt;/script&gt;");
});

test("a value containing a placeholder is not rendered again", (t) => {
  t.is(renderTemplate({ data: { a: "{{b}}", b: "no" }, template: { text: "{{a}}" } }).text, "{{b}}");
});
