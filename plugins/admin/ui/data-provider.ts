import { HttpError, type DataProvider, type GetListResult, type Identifier } from "ra-core";
import { ApiError, type ApiClient } from "./api-client";
import type { AdminRecord, BulkResult } from "./api-types";
import type { ModelRegistry } from "./model-registry";
import { CreateAttempts, IDEMPOTENCY_KEY_HEADER } from "./create-attempts";
import { formErrorsOf } from "./server-errors";

/** Rows per page unless the list asks otherwise. */
export const DEFAULT_PAGE_SIZE = 25;
/** The API's search term length (docs/admin.md). */
export const MAX_SEARCH_LENGTH = 100;

/**
 * ra-core needs `id`; the API's key is `_id` (some models have no `id` virtual). Typed `any`, as
 * ra-core's generic record types ask of a data provider.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function record(data: unknown): any {
  const value = data as Record<string, unknown>;
  return { ...value, id: String(value._id ?? value.id) } satisfies Partial<AdminRecord>;
}

/** A create or update refused by the server, with its field errors for the form. */
function forForm(error: unknown, fields: readonly string[]): unknown {
  const errors = formErrorsOf(error, fields);
  if (!errors || !(error instanceof ApiError)) return error;
  return new HttpError(error.message, error.status, { errors, entries: error.entries, requestId: error.requestId });
}

const encodeId = (id: Identifier) => encodeURIComponent(String(id));

/**
 * ra-core's data provider over the admin's model routes: a resource is a model name, mapped to
 * its `routePath` from the caller's config (which already holds the base path). Lists use the
 * API's `page`, `limit`, `sort` (`field` / `-field`) and `search`; bulk operations its
 * `bulk-update` and `bulk-delete` routes, answering the ids written. Creates carry an
 * `Idempotency-Key`, so saving again after a lost answer creates one record.
 */
export function dataProvider(api: ApiClient, models: ModelRegistry): DataProvider {
  const path = (resource: string) => models.get(resource).routePath;
  const fieldsOf = (resource: string) => Object.keys(models.get(resource).fields);
  const creates = new CreateAttempts();
  return {
    supportAbortSignal: true,
    async getList(resource, params): Promise<GetListResult> {
      const { page = 1, perPage = DEFAULT_PAGE_SIZE } = params.pagination ?? {};
      const sort = params.sort?.field ? `${params.sort.order === "DESC" ? "-" : ""}${params.sort.field}` : undefined;
      const search = typeof params.filter?.search === "string" ? params.filter.search.trim().slice(0, MAX_SEARCH_LENGTH) : undefined;
      const body = await api.request<{ data: unknown[]; total?: number; more?: boolean }>(path(resource), {
        query: { page, limit: perPage, sort, search: search || undefined },
        signal: params.signal,
      });
      return {
        data: body.data.map(record),
        ...(typeof body.total === "number" ? { total: body.total } : { pageInfo: { hasNextPage: body.more === true, hasPreviousPage: page > 1 } }),
      };
    },
    async getOne(resource, params) {
      const body = await api.request<{ data: unknown }>(`${path(resource)}/${encodeId(params.id)}`, { signal: params.signal });
      return { data: record(body.data) };
    },
    async getMany(resource, params) {
      const data = await Promise.all(params.ids.map(async (id) => record((await api.request<{ data: unknown }>(`${path(resource)}/${encodeId(id)}`, { signal: params.signal })).data)));
      return { data };
    },
    async getManyReference() {
      throw new Error("References are not listed by the admin UI");
    },
    async create(resource, params) {
      const key = creates.keyFor(resource, params.data);
      try {
        const body = await api.request<{ data: unknown }>(path(resource), { method: "POST", body: params.data, headers: { [IDEMPOTENCY_KEY_HEADER]: key } });
        creates.answered(resource, params.data);
        return { data: record(body.data) };
      } catch (error) {
        creates.failed(resource, params.data, error);
        throw forForm(error, fieldsOf(resource));
      }
    },
    async update(resource, params) {
      // `data` is already only the changed fields (the record page diffs the form).
      try {
        const body = await api.request<{ data: unknown }>(`${path(resource)}/${encodeId(params.id)}`, { method: "PATCH", body: params.data });
        return { data: record(body.data) };
      } catch (error) {
        throw forForm(error, fieldsOf(resource));
      }
    },
    async delete(resource, params) {
      await api.request(`${path(resource)}/${encodeId(params.id)}`, { method: "DELETE" });
      return { data: (params.previousData ?? { id: params.id }) as never };
    },
    async updateMany(resource, params) {
      const body = await api.request<{ data: { results: BulkResult[] } }>(`${path(resource)}/bulk-update`, { method: "POST", body: { ids: params.ids.map(String), data: params.data } });
      return { data: body.data.results.filter((result) => result.status < 300).map((result) => result.id), meta: { results: body.data.results } };
    },
    async deleteMany(resource, params) {
      const body = await api.request<{ data: { results: BulkResult[] } }>(`${path(resource)}/bulk-delete`, { method: "POST", body: { ids: params.ids.map(String) } });
      return { data: body.data.results.filter((result) => result.status < 300).map((result) => result.id), meta: { results: body.data.results } };
    },
    /** A platform tool's `GET` (its `routePath` from the config). */
    async tool<T>(routePath: string, signal?: AbortSignal): Promise<T> {
      return (await api.request<{ data: T }>(routePath, { signal })).data;
    },
    /** `POST {scripts}/:name/run` → the task. */
    async runScript(scriptsPath: string, name: string) {
      return (await api.request<{ data: unknown }>(`${scriptsPath}/${encodeURIComponent(name)}/run`, { method: "POST", body: {} })).data;
    },
  };
}
