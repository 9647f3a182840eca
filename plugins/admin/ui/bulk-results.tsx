import type { BulkResult } from "./api-types";

export interface BulkOutcome {
  readonly action: "deleted" | "updated";
  /** Whether anything was written (a refusal writes nothing). */
  readonly written: boolean;
  readonly message: string;
  readonly results: readonly BulkResult[];
}

const REASONS: Record<number, string> = { 403: "not allowed", 404: "not found (deleted meanwhile?)", 409: "changed meanwhile" };

/** What a bulk operation did, record by record: the refused ones first. */
export function BulkResults({ outcome, onClose }: { outcome: BulkOutcome; onClose: () => void }) {
  const problems = outcome.results.filter((result) => result.status >= 300);
  return (
    <section className={`bulk-results${outcome.written ? "" : " bulk-refused"}`} aria-labelledby="bulk-results-title" data-testid="bulk-results">
      <h2 id="bulk-results-title">{outcome.message}</h2>
      {problems.length > 0 ? (
        <ul>
          {problems.map((result) => (
            <li key={result.id}>
              <span className="mono">{result.id}</span>: {REASONS[result.status] ?? `refused (${result.status})`}
              {result.code ? <span className="hint"> ({result.code})</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <button type="button" className="link-button" onClick={onClose}>
        Close<span className="visually-hidden"> the results</span>
      </button>
    </section>
  );
}
