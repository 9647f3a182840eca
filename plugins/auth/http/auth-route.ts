import type { Request, RequestHandler, Response } from "express";
import { requireJsonBody } from "../../validation/index.js";

/** How an auth route reads its body. */
export interface AuthRouteOptions {
  /** The route takes bodies in other media types too (an OAuth provider's form POST). Default false: JSON only. */
  anyBody?: boolean;
}

/**
 * Wraps an async auth route: refuses a body that is not JSON (415, unless `anyBody`) and marks
 * every auth response `no-store`, so tokens and profiles never sit in a shared or browser cache.
 *
 * @example
 * router.post("/auth/login", authRoute(async (req, res) => { res.json({ data: await service.login(credentials, clientIp(req)) }); }));
 */
export function authRoute(handler: (req: Request, res: Response) => Promise<void>, options: AuthRouteOptions = {}): RequestHandler {
  // Express 5 hands a rejected handler's error to the app's error handler.
  return async (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    if (!options.anyBody) requireJsonBody(req);
    await handler(req, res);
  };
}

/**
 * The client's IP as express sees it (set `trustProxy` behind a load balancer).
 *
 * @example
 * await limiter.consumeSignup(clientIp(req));
 */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}

/** Where a sign-in (or its latest refresh) came from, as the sign-in list shows it. */
export interface SignInDevice {
  readonly ip: string;
  /** The client's `User-Agent`, cut to 256 characters. */
  readonly userAgent?: string;
}

/**
 * Where a sign-in comes from, for the account's sign-in list: the client's IP and `User-Agent`.
 *
 * @example
 * await service.login(credentials, signInDevice(req)); // { ip: "203.0.113.9", userAgent: "Mozilla/5.0 …" }
 */
export function signInDevice(req: Request): SignInDevice {
  const userAgent = req.get("user-agent");
  return { ip: clientIp(req), ...(userAgent ? { userAgent: userAgent.slice(0, 256) } : {}) };
}

/**
 * Query parameters as plain values (express 5's simple parser gives strings or arrays).
 *
 * @example
 * await github.begin(queryObject(req)); // { returnTo: "https://app.example.com/after" }
 */
export function queryObject(req: Request): Record<string, unknown> {
  return (req.query ?? {}) as Record<string, unknown>;
}
