import { useLogoutIfAccessDenied } from "ra-core";
import { useEffect, useRef, useState } from "react";
import { useParams } from "react-router";
import type { AdminScreenContext, AdminScreenRequest, AdminScreenRequestError } from "../admin-screen-api";
import { useAdminAccess, useApiClient, useSettings } from "./admin-context";
import { ApiError, type ApiClient } from "./api-client";
import type { AdminCustomScreen } from "./api-types";
import { usePageTitle } from "./page-title";
import { messageOf, useScreenScripts, type RegisteredScreen, type ScreenProblem } from "./screen-scripts";
import { LoadingPage, NotFoundPage } from "./status-pages";

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * A custom screen the app declares (`customScreens`): the config decides who sees it, a screen
 * script (`ui.screenScripts`) registers what it shows. Its content is the script's, mounted into
 * an element of its own below the heading; until a script registers it, the page says which name
 * a script must register and what went wrong loading them.
 */
export function CustomScreenPage() {
  const { name } = useParams();
  const access = useAdminAccess();
  const { loading, screens, problems } = useScreenScripts();
  const screen = access?.kind === "granted" ? access.config.customScreens.find((candidate) => candidate.name === name) : undefined;
  usePageTitle(screen?.displayName);
  if (!screen) return <NotFoundPage />;
  const registered = screens.get(screen.name);
  let content;
  if (registered) content = <MountedScreen key={screen.name} screen={screen} registered={registered} />;
  else if (loading) content = <LoadingPage />;
  else
    content = (
      <>
        <p>
          This screen is provided by the app ({screen.name}), but none of its screen scripts registered it. A script listed in the admin's{" "}
          <code>ui.screenScripts</code> shows it by calling <code>svcAdmin.registerScreen({JSON.stringify(screen.name)}, screen)</code>.
        </p>
        <Problems problems={problems.filter((problem) => problem.screen === undefined || problem.screen === screen.name)} />
      </>
    );
  return (
    <section aria-labelledby="screen-title" className="custom-screen">
      <h1 id="screen-title">{screen.displayName}</h1>
      {content}
    </section>
  );
}

function Problems({ problems }: { problems: readonly ScreenProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="form-error screen-problems" role="alert" data-testid="screen-problems">
      <p>{problems.length === 1 ? "A screen script had a problem:" : "The screen scripts had problems:"}</p>
      <ul>
        {problems.map((problem, index) => (
          <li key={index} className="wrap">
            {problem.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The registered screen, mounted into an element the page made for it (React never renders into
 * it, so the screen may use any framework or none), and its cleanup called when the user leaves.
 */
function MountedScreen({ screen, registered }: { screen: AdminCustomScreen; registered: RegisteredScreen }) {
  const host = useRef<HTMLDivElement>(null);
  const api = useApiClient();
  const { basePath } = useSettings();
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  // Read when a request fails, not when the screen mounts: the hook's function may change.
  const logout = useRef(logoutIfAccessDenied);
  logout.current = logoutIfAccessDenied;
  const { problems } = useScreenScripts();
  const [failure, setFailure] = useState<string>();

  useEffect(() => {
    const element = document.createElement("div");
    host.current!.append(element);
    const context: AdminScreenContext = {
      request: (path, options) => screenRequest(api, path, options, (error) => void logout.current(error)),
      user: { email: api.email ?? "", ...(api.name ? { name: api.name } : {}) },
      basePath,
      screen: { name: screen.name, displayName: screen.displayName },
    };
    let cleanup: (() => void) | undefined;
    try {
      const result = registered.screen.mount(element, context);
      if (typeof result === "function") cleanup = result;
      setFailure(undefined);
    } catch (error) {
      console.error(`svc admin: screen "${screen.name}" failed to show`, error);
      setFailure(messageOf(error));
    }
    return () => {
      try {
        cleanup?.();
      } catch (error) {
        console.error(`svc admin: screen "${screen.name}" failed to clean up`, error);
      }
      element.remove();
    };
  }, [api, basePath, registered, screen.name, screen.displayName]);

  return (
    <>
      {failure ? (
        <p className="form-error" role="alert">
          This screen failed to show: {failure}
        </p>
      ) : null}
      <Problems problems={problems.filter((problem) => problem.screen === screen.name)} />
      <div ref={host} className="custom-screen-content" data-testid="custom-screen-content" />
    </>
  );
}

/**
 * `context.request`: the admin's own client, so screens get the token, its refresh and the proxy
 * prefix; only paths of this origin (the token must never leave it). Errors are plain data a
 * script can read without the admin's classes.
 */
async function screenRequest<T>(api: ApiClient, path: string, options: AdminScreenRequest = {}, signedOut: (error: ApiError) => void): Promise<T> {
  if (typeof path !== "string" || !path.startsWith("/") || path.startsWith("//") || path.includes("\\")) {
    throw requestError(`context.request takes a path of the app's own, starting with a single /; it was given ${JSON.stringify(path)}`, 0);
  }
  const method = (options.method ?? "GET").toUpperCase() as NonNullable<AdminScreenRequest["method"]>;
  if (!METHODS.has(method)) throw requestError(`context.request cannot send ${JSON.stringify(options.method)}`, 0);
  const query: Record<string, string | number | undefined> = {};
  for (const [key, value] of Object.entries(options.query ?? {})) query[key] = typeof value === "boolean" ? String(value) : value;
  try {
    return await api.request<T>(path, { method, query, body: options.body });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // As anywhere in the admin: a dead sign-in ends it (ra-core signs out and says why).
    if (error.status === 401) signedOut(error);
    throw requestError(error.message, error.status, error.code, error.requestId);
  }
}

function requestError(message: string, status: number, code?: string, requestId?: string): AdminScreenRequestError {
  const error = new Error(message) as Error & { status: number; code?: string; requestId?: string };
  error.name = "AdminScreenRequestError";
  error.status = status;
  if (code !== undefined) error.code = code;
  if (requestId !== undefined) error.requestId = requestId;
  return error;
}
