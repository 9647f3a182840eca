import type { ReactNode } from "react";
import { usePageTitle } from "../page-title";
import { LoadingPage } from "../status-pages";

/** The frame of a tool page: its heading, then a loading line, the error, or the content. */
export function ToolPage({ title, isPending, error, children }: { title: string; isPending: boolean; error: Error | null; children: () => ReactNode }) {
  usePageTitle(title);
  return (
    <section aria-labelledby="tool-title" className="tool-page">
      <h1 id="tool-title">{title}</h1>
      {error ? (
        <p role="alert" className="form-error">
          {error.message}
        </p>
      ) : isPending ? (
        <LoadingPage />
      ) : (
        children()
      )}
    </section>
  );
}
