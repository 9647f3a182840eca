import type { Router } from "express";
import { requireUser } from "../../../contracts/request-user.js";
import { authRoute, clientIp } from "../http/auth-route.js";
import { credentialsBody, profileBody, refreshTokenBody, signupBody, type ProfileFieldSchemas } from "../http/request-bodies.js";
import type { JwtAuthService } from "./jwt-auth-service.js";

/** The JWT provider's public paths: credentials sent to them are not checked by the middleware. */
export const JWT_PUBLIC_PATHS = ["/auth/signup", "/auth/login", "/auth/refresh_token"];

/**
 * Mounts SPEC §4.2's JWT routes with ARCHITECTURE §4's bodies:
 * `POST /auth/signup` (201) and `POST /auth/login` (200) → `{data: {token, refreshToken, userId}}`;
 * `POST /auth/refresh_token {refreshToken}` → `{data: {token, refreshToken}}`;
 * `GET /auth/me` and `PATCH /auth/me` → `{data: user}`. Bodies are checked by the shared
 * validator before the service sees them (400 `VALIDATION_*`).
 *
 * @example
 * mountJwtRoutes(ctx.resolve(HTTP_ROUTER), service, { name: { type: "string" } });
 */
export function mountJwtRoutes(router: Router, service: JwtAuthService, profileFields: ProfileFieldSchemas): void {
  const checkSignup = signupBody(profileFields);
  const checkProfile = profileBody(profileFields);
  router.post(
    "/auth/signup",
    authRoute(async (req, res) => {
      res.status(201).json({ data: await service.signup(checkSignup(req.body), clientIp(req)) });
    }),
  );
  router.post(
    "/auth/login",
    authRoute(async (req, res) => {
      res.json({ data: await service.login(credentialsBody(req.body), clientIp(req)) });
    }),
  );
  router.post(
    "/auth/refresh_token",
    authRoute(async (req, res) => {
      res.json({ data: await service.refresh(refreshTokenBody(req.body).refreshToken) });
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
      const user = requireUser(req);
      res.json({ data: await service.updateProfile(user, checkProfile(req.body)) });
    }),
  );
}
