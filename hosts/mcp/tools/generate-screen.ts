import { isIdentifier, kebabCase, label, pascalCase, plural } from "../naming.js";
import { renderFiles } from "../tool-result.js";

export const SCREEN_TYPES = ["list", "detail", "form", "empty"] as const;
export type ScreenType = (typeof SCREEN_TYPES)[number];

export interface GenerateScreenArgs {
  name: string;
  type: ScreenType;
  modelName?: string;
  fields?: string[];
  hasSearch?: boolean;
  hasPagination?: boolean;
}

/**
 * `svc_generate_screen`: a React screen over a model's REST routes (`GET {path}` answering
 * `{data, page, more, total}`, `GET {path}/:id`, `POST`, `PATCH`). Non-synced data is fetched
 * per screen; synced collections should use the `svc/sync/react` hooks instead (docs: ui).
 *
 * @example
 * generateScreen({ name: "BookList", type: "list", modelName: "Book", fields: ["title"], hasPagination: true });
 */
export function generateScreen(args: GenerateScreenArgs): { text: string } | { errors: string[] } {
  const errors: string[] = [];
  const component = pascalCase(args.name);
  if (!component) errors.push(`name "${args.name}" is not a component name`);
  const model = args.modelName ? pascalCase(args.modelName) : undefined;
  if (args.type !== "empty" && !model) errors.push(`a ${args.type} screen needs modelName`);
  const fields = args.fields?.length ? args.fields : ["_id"];
  for (const field of fields) if (!isIdentifier(field)) errors.push(`field "${field}" is not a field name`);
  if (errors.length) return { errors };
  const source =
    args.type === "list" ? listScreen(component, model!, fields, args) :
    args.type === "detail" ? detailScreen(component, model!, fields) :
    args.type === "form" ? formScreen(component, model!, fields) :
    emptyScreen(component, model);
  return { text: renderFiles([{ path: `src/screens/${kebabCase(component)}.tsx`, language: "tsx", content: source }], notes(args)) };
}

function notes(args: GenerateScreenArgs): string {
  const lines = ["Props: `apiUrl` (the svc app's origin) and `token` (the access token from /auth/login)."];
  if (args.hasSearch) lines.push("Search sends `?search=`: give the router `searchFields` (e.g. `searchFields: [\"title\"]`).");
  if (args.type === "form") lines.push("For typed inputs per field, generate them with `svc_generate_form_fields`.");
  return lines.join("\n");
}

const routeOf = (model: string): string => `/${plural(kebabCase(model))}`;

const SHARED = (model: string) => `/** A ${label(model).toLowerCase()} as the API returns it. */
export interface ${model}Record {
  _id: string;
  [field: string]: unknown;
}

export interface ScreenProps {
  /** The svc app's origin, e.g. "http://localhost:3000". */
  apiUrl: string;
  /** The access token from /auth/login (sent as a Bearer token). */
  token?: string;
  /** The model router's path (default ${JSON.stringify(routeOf(model))}). */
  routePath?: string;
}

// svc answers every error as {errors: [{status, title, detail?}]}: show its title and detail.
async function api<T>(props: ScreenProps, path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(props.apiUrl + (props.routePath ?? ${JSON.stringify(routeOf(model))}) + path, {
    ...init,
    headers: { "content-type": "application/json", ...(props.token ? { authorization: \`Bearer \${props.token}\` } : {}) },
  });
  if (response.status === 204) return undefined as T;
  const body = await response.json();
  if (!response.ok) throw new Error([body.errors?.[0]?.title, body.errors?.[0]?.detail].filter(Boolean).join(": ") || response.statusText);
  return body as T;
}

const show = (value: unknown): string => (value === undefined || value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));
`;

function listScreen(component: string, model: string, fields: string[], args: GenerateScreenArgs): string {
  const query = [
    ...(args.hasPagination ? ["page: String(page)", "limit: String(PAGE_SIZE)"] : []),
    ...(args.hasSearch ? ["...(search ? { search } : {})"] : []),
  ];
  return `// ${component}: the ${plural(label(model).toLowerCase())} in a table${args.hasSearch ? ", searchable" : ""}${args.hasPagination ? ", a page at a time" : ""}.
import { useEffect, useState } from "react";

${SHARED(model)}${args.hasPagination ? "\nconst PAGE_SIZE = 20;\n" : ""}
export function ${component}(props: ScreenProps & { onSelect?: (record: ${model}Record) => void }) {
  const [records, setRecords] = useState<${model}Record[]>([]);
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);${args.hasPagination ? "\n  const [page, setPage] = useState(1);\n  const [more, setMore] = useState(false);" : ""}${args.hasSearch ? '\n  const [search, setSearch] = useState("");' : ""}

  useEffect(() => {
    let current = true;
    setLoading(true);
    const query = new URLSearchParams({ ${query.join(", ")} });
    api<{ data: ${model}Record[]; more: boolean }>(props, \`?\${query}\`).then(
      (body) => {
        if (!current) return;
        setRecords(body.data);${args.hasPagination ? "\n        setMore(body.more);" : ""}
        setError(undefined);
        setLoading(false);
      },
      (failure: Error) => current && (setError(failure.message), setLoading(false)),
    );
    return () => {
      current = false;
    };
  }, [props.apiUrl, props.token, props.routePath${args.hasPagination ? ", page" : ""}${args.hasSearch ? ", search" : ""}]);

  return (
    <section aria-busy={loading}>
      <h1>${label(plural(model))}</h1>${args.hasSearch ? `
      <input type="search" aria-label="Search" value={search} onChange={(e) => {${args.hasPagination ? " setPage(1);" : ""} setSearch(e.target.value); }} />` : ""}
      {error && <p role="alert">{error}</p>}
      <table>
        <thead>
          <tr>
${fields.map((field) => `            <th scope="col">${label(field)}</th>`).join("\n")}
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={record._id} onClick={() => props.onSelect?.(record)}>
${fields.map((field) => `              <td>{show(record.${field})}</td>`).join("\n")}
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && records.length === 0 && <p>Nothing here yet.</p>}${args.hasPagination ? `
      <nav aria-label="Pages">
        <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>Previous</button>
        <span>Page {page}</span>
        <button type="button" disabled={!more} onClick={() => setPage(page + 1)}>Next</button>
      </nav>` : ""}
    </section>
  );
}
`;
}

function detailScreen(component: string, model: string, fields: string[]): string {
  return `// ${component}: one ${label(model).toLowerCase()}, field by field.
import { useEffect, useState } from "react";

${SHARED(model)}
export function ${component}(props: ScreenProps & { id: string }) {
  const [record, setRecord] = useState<${model}Record>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let current = true;
    api<{ data: ${model}Record }>(props, \`/\${encodeURIComponent(props.id)}\`).then(
      (body) => current && setRecord(body.data),
      (failure: Error) => current && setError(failure.message),
    );
    return () => {
      current = false;
    };
  }, [props.apiUrl, props.token, props.routePath, props.id]);

  if (error) return <p role="alert">{error}</p>;
  if (!record) return <p aria-busy="true">Loading…</p>;
  return (
    <section>
      <h1>${label(model)}</h1>
      <dl>
${fields.map((field) => `        <dt>${label(field)}</dt>\n        <dd>{show(record.${field})}</dd>`).join("\n")}
      </dl>
    </section>
  );
}
`;
}

function formScreen(component: string, model: string, fields: string[]): string {
  return `// ${component}: creates a ${label(model).toLowerCase()}, or edits one when given its id.
import { useEffect, useState, type FormEvent } from "react";

${SHARED(model)}
type Values = Record<string, string>;

export function ${component}(props: ScreenProps & { id?: string; onSaved?: (record: ${model}Record) => void }) {
  const [values, setValues] = useState<Values>({});
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!props.id) return;
    api<{ data: ${model}Record }>(props, \`/\${encodeURIComponent(props.id)}\`).then(
      (body) => setValues(Object.fromEntries(${JSON.stringify(fields)}.map((field) => [field, show(body.data[field])]))),
      (failure: Error) => setError(failure.message),
    );
  }, [props.apiUrl, props.token, props.routePath, props.id]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      // PATCH sends only what the form holds; svc refuses unknown fields with a 400.
      const body = JSON.stringify(Object.fromEntries(Object.entries(values).filter(([, value]) => value !== "")));
      const saved = props.id
        ? await api<{ data: ${model}Record }>(props, \`/\${encodeURIComponent(props.id)}\`, { method: "PATCH", body })
        : await api<{ data: ${model}Record }>(props, "", { method: "POST", body });
      setError(undefined);
      props.onSaved?.(saved.data);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} aria-busy={saving}>
      <h1>{props.id ? "Edit ${label(model).toLowerCase()}" : "New ${label(model).toLowerCase()}"}</h1>
${fields.map((field) => `      <label htmlFor="${kebabCase(field)}">${label(field)}</label>\n      <input id="${kebabCase(field)}" value={values.${field} ?? ""} onChange={(e) => setValues({ ...values, ${field}: e.target.value })} />`).join("\n")}
      {error && <p role="alert">{error}</p>}
      <button type="submit" disabled={saving}>Save</button>
    </form>
  );
}
`;
}

function emptyScreen(component: string, model: string | undefined): string {
  return `// ${component}: an empty screen to build on${model ? ` (for ${plural(label(model).toLowerCase())})` : ""}.
import type { ReactNode } from "react";

export function ${component}({ children }: { children?: ReactNode }) {
  return (
    <section>
      <h1>${label(component)}</h1>
      {children ?? <p>Nothing here yet.</p>}
    </section>
  );
}
`;
}
