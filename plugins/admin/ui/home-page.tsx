import { LinkBase } from "ra-core";
import { useAdminAccess, useSettings } from "./admin-context";
import { usePageTitle } from "./page-title";

/** The start page: what the caller may open, with one line each. */
export function HomePage() {
  const access = useAdminAccess();
  const { appName } = useSettings();
  usePageTitle(undefined);
  if (access?.kind !== "granted") return null;
  const { models } = access.config;
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">{appName} admin</h1>
      {models.length === 0 ? <p>Your account can see no data here yet.</p> : <p>Choose what to look at.</p>}
      <ul className="cards">
        {models.map((model) => (
          <li key={model.name} className="card">
            <LinkBase to={`/${model.name}`}>{model.displayName}</LinkBase>
            <p className="hint">
              {model.actions.update.disabled && model.actions.create.disabled && model.actions.delete.disabled ? "Read only" : "Read and change"}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
