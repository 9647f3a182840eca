import { LinkBase, useDataProvider, useListController, useLogoutIfAccessDenied, useNavigate, useNotify, useResourceContext, type SortPayload } from "ra-core";
import { useEffect, useId, useState } from "react";
import { ApiError } from "./api-client";
import type { AdminModel, AdminRecord, BulkResult } from "./api-types";
import { useAdminModel } from "./admin-context";
import { BulkResults, type BulkOutcome } from "./bulk-results";
import { BulkUpdateForm } from "./bulk-update-form";
import { ConfirmButton } from "./confirm-button";
import { DEFAULT_PAGE_SIZE, MAX_SEARCH_LENGTH } from "./data-provider";
import { fieldLabel } from "./field-label";
import { FieldValue, recordLabel } from "./field-value";
import { usePageTitle } from "./page-title";
import { NotFoundPage } from "./status-pages";

/** Typing pauses this long before the list is searched. */
const SEARCH_DEBOUNCE_MS = 400;
const PAGE_SIZES = [10, 25, 50, 100];

function sortOf(defaultSort: string): SortPayload {
  return defaultSort.startsWith("-") ? { field: defaultSort.slice(1), order: "DESC" } : { field: defaultSort, order: "ASC" };
}

export function ModelList() {
  const resource = useResourceContext();
  const model = useAdminModel(resource);
  if (!model) return <NotFoundPage />;
  return <ModelListOf key={model.name} model={model} />;
}

/** The records of one model: search, sortable columns, pages, selection with bulk actions. */
function ModelListOf({ model }: { model: AdminModel }) {
  usePageTitle(model.displayName);
  const list = useListController<AdminRecord>({ resource: model.name, perPage: DEFAULT_PAGE_SIZE, sort: sortOf(model.defaultSort), debounce: SEARCH_DEBOUNCE_MS });
  const { data, total, page, perPage, setPage, setPerPage, sort, setSort, filterValues, setFilters, selectedIds: storedSelection, onToggleItem, onSelect, onUnselectItems, isPending, error, refetch, hasNextPage } = list;
  const dataProvider = useDataProvider();
  const notify = useNotify();
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  const navigate = useNavigate();
  const [outcome, setOutcome] = useState<BulkOutcome>();
  const [search, setSearch] = useState<string>(typeof filterValues.search === "string" ? filterValues.search : "");
  const captionId = useId();

  // Debounced: each keystroke would otherwise be a request.
  useEffect(() => {
    const term = search.trim();
    const current = typeof filterValues.search === "string" ? filterValues.search : "";
    if (term === current) return;
    const timer = setTimeout(() => setFilters(term ? { search: term } : {}, undefined, false), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search, filterValues.search, setFilters]);

  const rows = data ?? [];
  const pageIds = rows.map((row) => row.id);
  // Bulk actions act on the rows one can see: a selection kept from another page or search
  // (ra-core keeps it in its store) never deletes records that are not on the screen.
  const selectedIds = storedSelection.filter((id) => pageIds.includes(id));
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selectedIds.includes(id));
  const pages = total !== undefined ? Math.max(1, Math.ceil(total / perPage)) : undefined;
  const columns = model.listFields;

  const bulk = async (action: "deleted" | "updated", run: () => Promise<{ meta?: { results?: BulkResult[] } }>) => {
    const count = selectedIds.length;
    try {
      const result = await run();
      const results = result.meta?.results ?? [];
      const written = results.filter((entry) => entry.status < 300).length;
      setOutcome({ action, written: true, message: `${written} of ${count} ${count === 1 ? "record" : "records"} ${action}`, results });
      onUnselectItems();
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === "ADMIN_BULK_REFUSED") {
        const results = (failure.entries[0]?.meta?.results as BulkResult[] | undefined) ?? [];
        const refused = results.filter((entry) => entry.status >= 300).length;
        setOutcome({ action, written: false, message: `Nothing was ${action}: ${refused} of ${count} ${count === 1 ? "record was" : "records were"} refused`, results });
      } else if (!(await logoutIfAccessDenied(failure))) {
        notify(failure instanceof Error ? failure.message : "ra.notification.http_error", { type: "error" });
      }
    }
    await refetch();
  };

  const sortBy = (field: string) => setSort({ field, order: sort.field === field && sort.order === "ASC" ? "DESC" : "ASC" });

  const searching = typeof filterValues.search === "string" && filterValues.search !== "";
  const showBulk = selectedIds.length > 0;
  const deleteDisabled = model.actions.bulkDelete.disabled;
  const updateDisabled = model.actions.bulkUpdate.disabled;

  return (
    <section aria-labelledby="list-title" className="list-page">
      <div className="page-heading">
        <h1 id="list-title">{model.displayName}</h1>
        {!model.actions.create.disabled ? (
          <LinkBase className="button-primary" to={`/${model.name}/create`}>
            Create<span className="visually-hidden"> {model.displayName}</span>
          </LinkBase>
        ) : null}
      </div>

      <form role="search" className="search" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor="list-search">Search {model.displayName.toLowerCase()}</label>
        <input id="list-search" type="search" maxLength={MAX_SEARCH_LENGTH} value={search} onChange={(event) => setSearch(event.target.value)} />
      </form>

      {outcome ? <BulkResults outcome={outcome} onClose={() => setOutcome(undefined)} /> : null}

      {showBulk ? (
        <div className="bulk-bar" role="region" aria-label="Selected records">
          <p>
            <strong>{selectedIds.length}</strong> selected{" "}
            <button type="button" className="link-button" onClick={() => onUnselectItems()}>
              Clear selection
            </button>
          </p>
          <ConfirmButton
            label="Delete selected"
            question={`Delete ${selectedIds.length} ${selectedIds.length === 1 ? "record" : "records"}? This cannot be undone here.`}
            confirmLabel={`Yes, delete ${selectedIds.length}`}
            disabled={deleteDisabled}
            disabledReason="Your account may not delete these records."
            onConfirm={() => bulk("deleted", () => dataProvider.deleteMany(model.name, { ids: selectedIds }))}
          />
          {updateDisabled ? (
            <p className="hint">Your account may not change these records.</p>
          ) : (
            <BulkUpdateForm model={model} count={selectedIds.length} onSubmit={(changes) => bulk("updated", () => dataProvider.updateMany(model.name, { ids: selectedIds, data: changes }))} />
          )}
        </div>
      ) : null}

      {error ? (
        <p role="alert" className="form-error">
          {error instanceof Error ? error.message : "The list could not be loaded."}
        </p>
      ) : null}

      <div className="table-wrap">
        <table aria-describedby={captionId}>
          <caption id={captionId} className="visually-hidden">
            {model.displayName}
            {searching ? `, matching “${String(filterValues.search)}”` : ""}, sorted by {fieldLabel(sort.field)} {sort.order === "ASC" ? "ascending" : "descending"}
          </caption>
          <thead>
            <tr>
              <th scope="col" className="select-cell">
                <input type="checkbox" aria-label="Select all on this page" checked={allSelected} disabled={pageIds.length === 0} onChange={() => onSelect(allSelected ? [] : pageIds)} />
              </th>
              {columns.map((column) => {
                const sorted = sort.field === column ? (sort.order === "ASC" ? "ascending" : "descending") : undefined;
                return (
                  <th key={column} scope="col" aria-sort={sorted ?? "none"}>
                    <button type="button" className="sort-button" onClick={() => sortBy(column)}>
                      {fieldLabel(column)}
                      <span aria-hidden="true" className="sort-mark">
                        {sorted === "ascending" ? " ▲" : sorted === "descending" ? " ▼" : ""}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const label = recordLabel(row);
              return (
                <tr
                  key={row.id}
                  className={selectedIds.includes(row.id) ? "selected" : undefined}
                  data-testid="list-row"
                  onClick={(event) => {
                    // The row is a big target for mouse users; keyboard users have the link.
                    if ((event.target as HTMLElement).closest("a, button, input, label")) return;
                    navigate(`/${model.name}/${encodeURIComponent(row.id)}`);
                  }}
                >
                  <td className="select-cell">
                    <input type="checkbox" aria-label={`Select ${label}`} checked={selectedIds.includes(row.id)} onChange={() => onToggleItem(row.id)} />
                  </td>
                  {columns.map((column, index) => (
                    <td key={column}>
                      {index === 0 ? (
                        <LinkBase to={`/${model.name}/${encodeURIComponent(row.id)}`}>
                          {row[column] === undefined || row[column] === null || row[column] === "" ? label : <FieldValue field={model.fields[column]} value={row[column]} compact />}
                        </LinkBase>
                      ) : (
                        <FieldValue field={model.fields[column]} value={row[column]} compact />
                      )}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {isPending ? <p role="status">Loading…</p> : rows.length === 0 && !error ? <p className="empty-list">{searching ? `Nothing matches “${String(filterValues.search)}”.` : "No records yet."}</p> : null}

      <nav className="pagination" aria-label="Pages">
        <button type="button" className="button-secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous<span className="visually-hidden"> page</span>
        </button>
        <span data-testid="page-status">
          Page {page}
          {pages !== undefined ? ` of ${pages}` : ""}
          {total !== undefined ? ` · ${total} ${total === 1 ? "record" : "records"}` : ""}
        </span>
        <button type="button" className="button-secondary" disabled={pages !== undefined ? page >= pages : !hasNextPage} onClick={() => setPage(page + 1)}>
          Next<span className="visually-hidden"> page</span>
        </button>
        <label className="page-size">
          Per page{" "}
          <select value={perPage} onChange={(event) => setPerPage(Number(event.target.value))}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </nav>
    </section>
  );
}
