/** A template's parts: each is rendered alone. */
export interface CommsTemplate {
  readonly subject?: string;
  readonly text?: string;
  readonly html?: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}/g;
const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Replaces top-level `{{variable}}` placeholders in `subject`, `text` and `html` with `data`'s
 * own properties (SPEC §2.7). Nothing is evaluated: a placeholder is a name, never an expression
 * or a path; missing and inherited properties (`{{constructor}}`, `{{__proto__}}`) render empty,
 * as do objects and functions. Values are HTML-escaped in `html` so data cannot inject markup.
 *
 * @example
 * renderTemplate({ data: { name: "Ada" }, template: { subject: "Hi {{name}}", html: "<p>{{ name }}</p>" } });
 * // { subject: "Hi Ada", html: "<p>Ada</p>" }
 */
export function renderTemplate<T extends CommsTemplate>({ data, template }: { data: Readonly<Record<string, unknown>>; template: T }): T {
  const value = (name: string): string => {
    if (data === null || typeof data !== "object" || !Object.prototype.hasOwnProperty.call(data, name)) return "";
    const found: unknown = data[name];
    return typeof found === "string" || typeof found === "number" || typeof found === "boolean" || typeof found === "bigint" ? String(found) : "";
  };
  const render = (text: string | undefined, escape: boolean) =>
    typeof text === "string" ? text.replace(PLACEHOLDER, (_match, name: string) => (escape ? value(name).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!) : value(name))) : text;
  const rendered: CommsTemplate = { ...template };
  if (template.subject !== undefined) (rendered as { subject?: string }).subject = render(template.subject, false);
  if (template.text !== undefined) (rendered as { text?: string }).text = render(template.text, false);
  if (template.html !== undefined) (rendered as { html?: string }).html = render(template.html, true);
  return rendered as T;
}
