import { useParams } from "react-router";
import { useAdminAccess } from "./admin-context";
import { NotFoundPage } from "./status-pages";
import { usePageTitle } from "./page-title";

/**
 * A custom screen the app declares (`customScreens`). There is no way yet for an app to plug its
 * own React into this bundle (it is built by the framework), so the page names the screen and
 * says so, rather than pretending.
 */
export function CustomScreenPage() {
  const { name } = useParams();
  const access = useAdminAccess();
  const screen = access?.kind === "granted" ? access.config.customScreens.find((candidate) => candidate.name === name) : undefined;
  usePageTitle(screen?.displayName);
  if (!screen) return <NotFoundPage />;
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">{screen.displayName}</h1>
      <p>This screen is provided by the app ({screen.name}). The admin UI cannot show its content yet.</p>
    </section>
  );
}
