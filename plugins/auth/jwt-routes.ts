import type { Router } from "express";
import type { JwtAuthService } from "./jwt-auth-service.js";
import { authRoute, clientIp, requireUser } from "./route-helpers.js";

/** The JWT provider's public paths: credentials sent to them are not checked by the middleware. */
export const JWT_PUBLIC_PATHS = ["/auth/signup", "/auth/login", "/auth/refresh_token"];

/**
 * Mounts SPEC §4.2's JWT routes with ARCHITECTURE §4's bodies:
 * `POST /auth/signup` (201) and `POST /auth/login` (200) → `{data: {token, refreshToken, userId}}`;
 * `POST /auth/refresh_token {refreshToken}` → `{data: {token, refreshToken}}`;
 * `GET /auth/me` and `PATCH /auth/me` → `{data: user}`.
 *
 * @example
 * mountJwtRoutes(ctx.resolve(HTTP_ROUTER), service);
 */
export function mountJwtRoutes(router: Router, service: JwtAuthService): void {
  router.post(
    "/auth/signup",
    authRoute(async (req, res) => {
      res.status(201).json({ data: await service.signup(req.body, clientIp(req)) });
    }),
  );
  router.post(
    "/auth/login",
    authRoute(async (req, res) => {
      res.json({ data: await service.login(req.body, clientIp(req)) });
    }),
  );
  router.post(
    "/auth/refresh_token",
    authRoute(async (req, res) => {
      res.json({ data: await service.refresh(req.body) });
    }),
  );
  router.get(
    "/auth/me",
    authRoute(async (req, res) => {
      res.json({ data: service.present(requireUser(req)) });
    }),
  );
  router.patch(
    "/auth/me",
    authRoute(async (req, res) => {
      res.json({ data: await service.updateProfile(requireUser(req), req.body) });
    }),
  );
}
