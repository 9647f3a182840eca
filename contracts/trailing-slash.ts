import type { Request, Response } from "express";

/**
 * For pages whose URLs are relative to themselves (so they keep working behind a proxy that
 * serves the app under a prefix it strips): answers `…/docs` with a redirect to `docs/`, keeping
 * the query, and says so. The redirect is relative too, since the app does not know the prefix;
 * the browser does.
 *
 * @example
 * router.get("/", (req, res) => {
 *   if (redirectedToTrailingSlash(req, res)) return;
 *   res.type("html").send(page);
 * });
 */
export function redirectedToTrailingSlash(req: Request, res: Response): boolean {
  const at = req.originalUrl.indexOf("?");
  const [pathname, query] = at === -1 ? [req.originalUrl, ""] : [req.originalUrl.slice(0, at), req.originalUrl.slice(at)];
  if (pathname.endsWith("/")) return false;
  res.redirect(301, `${pathname.slice(pathname.lastIndexOf("/") + 1)}/${query}`);
  return true;
}
